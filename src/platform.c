/*
 * platform.c — OS glue: memory mappings, futex waits, raw output, entropy.
 * Every function here is async-signal-safe and never allocates.
 */
#include "platform.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

size_t cg_pagesize = 4096;

static void *map_rw(size_t len, int extra_flags)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *cg_os_map(size_t len)
{
    return map_rw(len, 0);
}

/* Map len bytes at an address that is a multiple of align (a power of two
 * not below the page size): map len + align and cut off both ends, as glibc's
 * new_heap does for its HEAP_MAX_SIZE-aligned heaps. */
void *cg_os_map_aligned(size_t len, size_t align)
{
    if (len + align < len)
        return NULL;
    char *raw = map_rw(len + align, MAP_NORESERVE);
    if (raw == NULL)
        return NULL;
    uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
    size_t head = start - (uintptr_t)raw;
    if (head)
        munmap(raw, head);
    size_t tail = align - head;
    if (tail)
        munmap((char *)start + len, tail);
    return (void *)start;
}

bool cg_os_guard(void *p, size_t len)
{
    return mprotect(p, len, PROT_NONE) == 0;
}

/* unmap and decommit run inside free(), which must preserve errno. */
void cg_os_unmap(void *p, size_t len)
{
    int saved = errno;
    munmap(p, len);
    errno = saved;
}

void cg_os_decommit(void *p, size_t len)
{
    int saved = errno;
    madvise(p, len, MADV_DONTNEED);
    errno = saved;
}

/* Write everything or give up quietly: a report must never block or loop
 * forever on a closed or broken descriptor. */
void cg_os_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

uint64_t cg_os_random64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
        /* No entropy yet (early boot): mix clock and addresses.  The key
         * only needs to be unpredictable to accidental corruption. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ (uintptr_t)&v;
        v *= 0x9e3779b97f4a7c15ull;
    }
    return v | 1;   /* never zero: zero means "not a freed tcache entry" */
}

pid_t cg_os_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Contended path of the three-state futex lock: mark the lock contended and
 * sleep until the holder's unlock wakes us. */
void cg_lock_slow(cg_lock_t *l)
{
    int saved = errno;
    while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    errno = saved;
}

void cg_unlock_wake(cg_lock_t *l)
{
    int saved = errno;
    syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    errno = saved;
}
