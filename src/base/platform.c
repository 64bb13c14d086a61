/*
 * platform.c — OS glue: memory mappings, futex waits, raw output, entropy,
 * CPU count.  Every function here is async-signal-safe, never allocates and
 * leaves errno alone.
 */
#define _GNU_SOURCE
#include "platform.h"
#include "thread.h"
#include "vgclient.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

size_t cg_pagesize = 4096;

/*
 * Kernel calls go straight to the kernel (the x86_64 `syscall` instruction)
 * rather than through libc's wrappers: no errno side effects, no
 * cancellation points, nothing of libc that a half-initialised or
 * corrupted process might need — and fewer of libc's pages touched, which
 * shows up in small programs' RSS.  Sanitizer builds keep libc's wrappers,
 * which their runtimes intercept.  Returns the raw result: -errno on
 * failure.  (CG_SANITIZER_BUILD: config.h.)
 */

#if defined(__x86_64__) && !defined(CG_SANITIZER_BUILD)
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
#else
/* The sanitizers follow mappings through libc's functions: TSan resets the
 * state it keeps for a range in its munmap interceptor, which a bare
 * syscall() bypasses — an address unmapped by one thread and mapped again
 * by another then looks like a race between the two threads' accesses. */
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    int saved = errno;
    long r;
    void *p;
    switch (nr) {
    case SYS_mmap:
        p = mmap((void *)a, (size_t)b, (int)c, (int)d, (int)e, (off_t)f);
        r = p == MAP_FAILED ? -1 : (long)p;
        break;
    case SYS_munmap:
        r = munmap((void *)a, (size_t)b);
        break;
    case SYS_mremap:
        p = mremap((void *)a, (size_t)b, (size_t)c, (int)d);
        r = p == MAP_FAILED ? -1 : (long)p;
        break;
    default:
        r = syscall(nr, a, b, c, d, e, f);
    }
    if (r == -1)
        r = -errno;
    errno = saved;
    return r;
}
#endif
#define SYS(nr, a, b, c, d, e, f) \
    sys6((nr), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

static bool sys_failed(long r) { return (unsigned long)r > -4096ul; }

static void *map_rw(size_t len, int extra_flags)
{
    long r = SYS(SYS_mmap, 0, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
    return sys_failed(r) ? NULL : (void *)r;
}

CG_HOT_TEXT void *cg_os_map(size_t len)
{
    return map_rw(len, 0);
}

/* Map len bytes with protection prot (never writable-only) at an address
 * that is a multiple of align (a power of two not below the page size),
 * without reserving swap (MAP_NORESERVE).  First try len bytes as they
 * come, then at the aligned address just below them (the kernel hands out
 * mappings top-down, so that space is usually free); only then map len +
 * align and cut off both ends, as glibc's new_heap does — which needs
 * twice the address space for a moment, and may fail under RLIMIT_AS
 * where the others succeed. */
CG_HOT_TEXT static void *map_aligned(size_t len, size_t align, int prot)
{
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    if (len + align < len)
        return NULL;
    long r = SYS(SYS_mmap, 0, len, prot, flags, -1, 0);
    if (!sys_failed(r) && ((uintptr_t)r & (align - 1)) == 0)
        return (void *)r;
    if (!sys_failed(r)) {
        SYS(SYS_munmap, r, len, 0, 0, 0, 0);
        uintptr_t down = (uintptr_t)r & ~(uintptr_t)(align - 1);
        r = SYS(SYS_mmap, down, len, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);
        if (!sys_failed(r) && (uintptr_t)r == down)
            return (void *)r;
        if (!sys_failed(r))      /* an old kernel took it as a hint elsewhere */
            SYS(SYS_munmap, r, len, 0, 0, 0, 0);
    }
    r = SYS(SYS_mmap, 0, len + align, prot, flags, -1, 0);
    if (sys_failed(r))
        return NULL;
    char *raw = (char *)r;
    uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
    size_t head = start - (uintptr_t)raw;
    if (head)
        SYS(SYS_munmap, raw, head, 0, 0, 0, 0);
    size_t tail = align - head;
    if (tail)
        SYS(SYS_munmap, (char *)start + len, tail, 0, 0, 0, 0);
    return (void *)start;
}

void *cg_os_map_aligned(size_t len, size_t align)
{
    return map_aligned(len, align, PROT_READ | PROT_WRITE);
}

CG_HOT_TEXT void *cg_os_reserve_aligned(size_t len, size_t align)
{
    return map_aligned(len, align, PROT_NONE);
}

void *cg_os_reserve(size_t len)
{
    long r = SYS(SYS_mmap, 0, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return sys_failed(r) ? NULL : (void *)r;
}

CG_HOT_TEXT bool cg_os_commit(void *p, size_t len)
{
    return len == 0 || !sys_failed(SYS(SYS_mprotect, p, len, PROT_READ | PROT_WRITE, 0, 0, 0));
}

CG_HOT_TEXT bool cg_os_seal(void *p, size_t len)
{
    long r = SYS(SYS_mmap, p, len, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return !sys_failed(r);
}

/* ---- guarded mappings ---------------------------------------------------
 * Every live mapping cg_os_map_guarded made, and every guard page
 * cg_os_map_guard_page placed, as the range [lo, hi) whose first and last
 * pages are the guards, so that a fault handler can tell a wild access to
 * one of them from any other fault (cg_os_guard_hit).  Lock-free: a slot
 * is claimed by a compare-and-swap of its lo from 0 to 1, filled, then
 * published by storing lo; cleared by storing 0.  Slots are used from the
 * front, so only the pages of the table that were ever needed are touched;
 * when it is full a mapping still gets its guard pages, unregistered (a
 * fault on them is then not recognised as one). */
#define GUARDED_MAX 8192
typedef struct guarded {
    uintptr_t lo, hi;
} guarded_t;
static CG_BIG_BSS guarded_t guarded[GUARDED_MAX];
static uintptr_t guarded_top;          /* slots ever used: the lookups' bound */

/* Set *w from expect to v: a compare-and-swap when other threads may run,
 * plain loads and stores otherwise (the single-threaded paths execute no
 * locked instruction: tools/check-fastpath.sh). */
static bool swap_if(uintptr_t *w, uintptr_t expect, uintptr_t v, bool mt)
{
    if (mt)
        return __atomic_compare_exchange_n(w, &expect, v, false, __ATOMIC_ACQ_REL,
                                           __ATOMIC_RELAXED);
    if (*w != expect)
        return false;
    *w = v;
    return true;
}

CG_HOT_TEXT static void guard_register(uintptr_t lo, uintptr_t hi)
{
    bool mt = !CG_SINGLE_THREAD_P;
    for (size_t i = 0; i < GUARDED_MAX; i++) {
        if (__atomic_load_n(&guarded[i].lo, __ATOMIC_RELAXED) != 0 ||
            !swap_if(&guarded[i].lo, 0, 1, mt))
            continue;
        __atomic_store_n(&guarded[i].hi, hi, __ATOMIC_RELAXED);
        __atomic_store_n(&guarded[i].lo, lo, __ATOMIC_RELEASE);
        for (;;) {
            size_t top = __atomic_load_n(&guarded_top, __ATOMIC_ACQUIRE);
            if (top >= i + 1 || swap_if(&guarded_top, top, i + 1, mt))
                return;
        }
    }
}

static void guard_unregister(uintptr_t lo)
{
    size_t top = __atomic_load_n(&guarded_top, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < top; i++)
        if (__atomic_load_n(&guarded[i].lo, __ATOMIC_ACQUIRE) == lo) {
            __atomic_store_n(&guarded[i].lo, 0, __ATOMIC_RELEASE);
            return;
        }
}

/* ---- the metadata body -------------------------------------------------
 * One reservation of address space (PROT_NONE, no swap reserved) whose
 * first page is a guard page; pieces are handed out upwards from just
 * above it and made read-write as they go (mprotect), so that the pieces
 * made so far are one read-write mapping, and the first page above them,
 * still inaccessible, is the upper guard.  Every structure carved here
 * thus sits between the same two guard pages: three lines of
 * /proc/self/maps (the lower guard, the body, the unused rest) for all of
 * them, where a guarded mapping each costs two or three (docs/proposals.md,
 * "one guarded body").  The reservation is made on the first request: that
 * request and META_ROOM more (address space only: a process under
 * RLIMIT_AS loses no more of it than the structures would take, plus
 * META_ROOM), or, when that cannot be had, the request and less room,
 * down to META_ROOM_MIN.  A request that does not fit, or that comes while
 * another thread is making the body, gets a guarded mapping of its own
 * instead.  Lock-free: the top moves by a compare-and-swap. */
#define META_ROOM ((size_t)128 << 20)
#define META_ROOM_MIN ((size_t)8 << 20)
static uintptr_t meta_lo, meta_end;    /* the reservation, guard page first */
static uintptr_t meta_top;             /* first byte not handed out */
static uintptr_t meta_state;           /* 0 none, 1 being made, 2 made, 3 failed */

static bool meta_make(size_t first)
{
    uintptr_t st = __atomic_load_n(&meta_state, __ATOMIC_ACQUIRE);
    if (st != 0)
        return st == 2;
    if (!swap_if(&meta_state, 0, 1, !CG_SINGLE_THREAD_P))
        return __atomic_load_n(&meta_state, __ATOMIC_ACQUIRE) == 2;
    void *r = NULL;
    size_t len = 0;
    for (size_t room = META_ROOM; r == NULL && room >= META_ROOM_MIN; room /= 2) {
        len = first + room;
        if (len > first)               /* no overflow */
            r = cg_os_reserve(len);
    }
    if (r == NULL) {
        __atomic_store_n(&meta_state, 3, __ATOMIC_RELEASE);
        return false;
    }
    meta_lo = (uintptr_t)r;
    meta_end = meta_lo + len;
    __atomic_store_n(&meta_top, meta_lo + cg_pagesize, __ATOMIC_RELAXED);
    __atomic_store_n(&meta_state, 2, __ATOMIC_RELEASE);
    return true;
}

void *cg_os_map_meta_aligned(size_t len, size_t align)
{
    size_t body = CG_PAGE_ROUND(len);
    if (len == 0 || body < len || align == 0 || (align & (align - 1)) != 0)
        return NULL;
    if (meta_make(body + (align > cg_pagesize ? align : 0))) {
        bool mt = !CG_SINGLE_THREAD_P;
        for (;;) {
            uintptr_t top = __atomic_load_n(&meta_top, __ATOMIC_ACQUIRE);
            uintptr_t at = (top + align - 1) & ~(uintptr_t)(align - 1);
            if (at < top || at > meta_end || body > meta_end - at ||
                meta_end - at - body < cg_pagesize)
                break;                 /* full: the upper guard must stay */
            if (!swap_if(&meta_top, top, at + body, mt))
                continue;
            /* the gap below an aligned piece is opened too (unused, no
             * memory): the body stays one read-write mapping */
            if (!cg_os_commit((void *)top, at + body - top))
                break;                 /* the piece stays inaccessible, unused */
            cg_vg_noaccess((void *)top, at + body - top);
            return (void *)at;
        }
    }
    return align > cg_pagesize ? NULL : cg_os_map_guarded(len);
}

void *cg_os_map_meta(size_t len)
{
    return cg_os_map_meta_aligned(len, cg_pagesize);
}

void cg_os_unmap_meta(void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    if (__atomic_load_n(&meta_state, __ATOMIC_ACQUIRE) == 2 && a >= meta_lo && a < meta_end)
        cg_os_seal(p, CG_PAGE_ROUND(len));   /* inaccessible, memory given back, not reused */
    else
        cg_os_unmap_guarded(p, len);
}

bool cg_os_meta_body(uintptr_t *lo, uintptr_t *hi)
{
    if (__atomic_load_n(&meta_state, __ATOMIC_ACQUIRE) != 2)
        return false;
    *lo = meta_lo + cg_pagesize;
    *hi = __atomic_load_n(&meta_top, __ATOMIC_ACQUIRE);
    return true;
}

bool cg_os_guard_hit(const void *addr, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t a = (uintptr_t)addr;
    if (__atomic_load_n(&meta_state, __ATOMIC_ACQUIRE) == 2 && a >= meta_lo && a < meta_end) {
        uintptr_t top = __atomic_load_n(&meta_top, __ATOMIC_ACQUIRE);
        if (a >= meta_lo + cg_pagesize && a < top)
            return false;              /* inside a piece (or a sealed one) */
        *lo = meta_lo;                 /* below the body, or above its top */
        *hi = a < top + cg_pagesize ? top + cg_pagesize : (a & ~(cg_pagesize - 1)) + cg_pagesize;
        return true;
    }
    size_t top = __atomic_load_n(&guarded_top, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < top; i++) {
        uintptr_t l = __atomic_load_n(&guarded[i].lo, __ATOMIC_ACQUIRE);
        uintptr_t h = __atomic_load_n(&guarded[i].hi, __ATOMIC_RELAXED);
        if (l <= 1 || a < l || a >= h)
            continue;
        if (a < l + cg_pagesize || a >= h - cg_pagesize) {
            *lo = l;
            *hi = h;
            return true;
        }
        return false;                  /* inside the mapping's usable part */
    }
    return false;
}

CG_HOT_TEXT void *cg_os_map_guarded(size_t len)
{
    size_t pg = cg_pagesize, body = CG_PAGE_ROUND(len);
    if (len == 0 || body < len || body + 2 * pg < body)
        return NULL;
    long r = SYS(SYS_mmap, 0, body + 2 * pg, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sys_failed(r))
        return NULL;
    char *lo = (char *)r;
    if (!cg_os_commit(lo + pg, body)) {
        SYS(SYS_munmap, lo, body + 2 * pg, 0, 0, 0, 0);
        return NULL;
    }
    guard_register((uintptr_t)lo, (uintptr_t)lo + body + 2 * pg);
    cg_vg_noaccess(lo + pg, body);     /* metadata: the program's to not touch */
    return lo + pg;
}

void cg_os_unmap_guarded(void *p, size_t len)
{
    size_t pg = cg_pagesize;
    uintptr_t lo = (uintptr_t)p - pg;
    guard_unregister(lo);
    SYS(SYS_munmap, lo, CG_PAGE_ROUND(len) + 2 * pg, 0, 0, 0, 0);
}

CG_HOT_TEXT bool cg_os_map_guard_page(void *p)
{
    long r = SYS(SYS_mmap, p, cg_pagesize, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (sys_failed(r))
        return false;
    if ((void *)r != p) {              /* an old kernel took it as a hint elsewhere */
        SYS(SYS_munmap, r, cg_pagesize, 0, 0, 0, 0);
        return false;
    }
    guard_register((uintptr_t)p, (uintptr_t)p + cg_pagesize);
    return true;
}

#if CG_SWITCH(CG_TEST_HOOKS)
void *cg_os_test_map_at(void *p, size_t len)
{
    long r = SYS(SYS_mmap, p, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (sys_failed(r))
        return NULL;
    if ((void *)r != p) {              /* an old kernel took it as a hint */
        SYS(SYS_munmap, r, len, 0, 0, 0, 0);
        return NULL;
    }
    /* A line of its own in /proc/self/maps: a mapping marked
     * MADV_DONTFORK never merges with a read-write neighbour (a big
     * block's pages), so a layout audit sees it as what it is. */
    SYS(SYS_madvise, p, len, MADV_DONTFORK, 0, 0, 0);
    return p;
}
#endif

void cg_os_unmap_guard_page(void *p)
{
    guard_unregister((uintptr_t)p);
    SYS(SYS_munmap, p, cg_pagesize, 0, 0, 0, 0);
}

CG_HOT_TEXT void cg_os_unmap(void *p, size_t len)
{
    SYS(SYS_munmap, p, len, 0, 0, 0, 0);
}

void cg_os_decommit(void *p, size_t len)
{
    SYS(SYS_madvise, p, len, MADV_DONTNEED, 0, 0, 0);
}

bool cg_os_huge_pages(void *p, size_t len)
{
    return !sys_failed(SYS(SYS_madvise, p, len, MADV_HUGEPAGE, 0, 0, 0));
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25         /* Linux 6.1; glibc 2.36's headers lack it */
#endif

bool cg_os_collapse(void *p, size_t len)
{
    return !sys_failed(SYS(SYS_madvise, p, len, MADV_COLLAPSE, 0, 0, 0));
}

bool cg_os_thp_allowed(void)
{
    char buf[128];
    if (cg_os_read_small("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf) == 0)
        return false;
    return strstr(buf, "[always]") != NULL || strstr(buf, "[madvise]") != NULL;
}

void *cg_os_remap(void *p, size_t oldlen, size_t newlen)
{
    long r = SYS(SYS_mremap, p, oldlen, newlen, MREMAP_MAYMOVE, 0, 0);
    return sys_failed(r) ? NULL : (void *)r;
}

/* The pipe (or FIFO, socket, terminal: its device and inode) whose last
 * write gave up after CG_OS_WRITE_STALL_MS with nothing written (ino 0:
 * none): the next write to it tries without waiting, and waits again once
 * the reader takes bytes.  So a report of many writes to a stderr nobody
 * reads (a leak report's groups, log_path opened anew for each) costs one
 * stall, not one each. */
static uint64_t stalled_dev, stalled_ino;

/* Write everything, or give up quietly: a report must never block or loop
 * for ever on a closed or broken descriptor, nor on a pipe (or socket,
 * terminal, FIFO) that nobody reads.  Each write waits in poll(2) for room
 * first, at most CG_OS_WRITE_STALL_MS since the last byte went out: a
 * reader that drains slowly loses nothing, one that stopped costs one
 * stall.  Onto anything but a regular file it writes at most PIPE_BUF
 * bytes after poll saw room, which a blocking pipe takes without waiting
 * (one free page of it is what POLLOUT means); a regular file gets the
 * rest in one write (O_APPEND lines of several processes stay whole). */
static size_t write_loop(int fd, const char *buf, size_t len)
{
    size_t done = 0;
    struct stat sb;
    if (sys_failed(SYS(SYS_fstat, fd, &sb, 0, 0, 0, 0)))
        sb = (struct stat){ .st_mode = 0, .st_ino = 0 };
    bool regular = S_ISREG(sb.st_mode);
    bool stalled = sb.st_ino != 0 && sb.st_ino == stalled_ino && sb.st_dev == stalled_dev;
    uint64_t stall_ns = (stalled ? 0 : CG_OS_WRITE_STALL_MS) * 1000000ull;
    uint64_t last = cg_os_now_ns();
    while (done < len) {
        if (!regular) {
            uint64_t idle = cg_os_now_ns() - last;
            uint64_t left = idle < stall_ns ? stall_ns - idle : 0;
            struct timespec ts = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
            struct pollfd p = { fd, POLLOUT, 0 };
            long r = SYS(SYS_ppoll, &p, 1, &ts, 0, 8, 0);
            if (r == -EINTR)
                continue;
            if (r == 0) {               /* no room for the whole stall: give up */
                stalled_dev = sb.st_dev;
                stalled_ino = sb.st_ino;
                break;
            }
            if (sys_failed(r) || (p.revents & POLLNVAL))
                break;
        }
        size_t want = len - done;
        if (!regular && want > PIPE_BUF)
            want = PIPE_BUF;
        long n = SYS(SYS_write, fd, buf + done, want, 0, 0, 0);
        if (n == -EINTR || n == -EAGAIN)
            continue;                   /* EAGAIN: a non-blocking fd, poll again */
        if (n <= 0)
            break;
        done += (size_t)n;
        last = cg_os_now_ns();
        stall_ns = CG_OS_WRITE_STALL_MS * 1000000ull;
        if (stalled) {
            stalled = false;
            stalled_ino = 0;
        }
    }
    return done;
}

void cg_os_write_all(int fd, const char *buf, size_t len)
{
    write_loop(fd, buf, len);
}

CG_HOT_TEXT uint64_t cg_os_random64(void)
{
    uint64_t v = 0;
    if (SYS(SYS_getrandom, &v, sizeof v, GRND_NONBLOCK, 0, 0, 0) != (long)sizeof v) {
        /* No entropy yet (early boot): mix clock and addresses.  The key
         * only needs to be unpredictable to accidental corruption. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ (uintptr_t)&v;
        v *= 0x9e3779b97f4a7c15ull;
    }
    return v | 1;   /* never zero: zero means "not a freed tcache entry" */
}

CG_HOT_TEXT size_t cg_os_ncpus(void)
{
    uint64_t mask[16] = {0};   /* 1024 CPUs */
    long n = SYS(SYS_sched_getaffinity, 0, sizeof mask, mask, 0, 0, 0);
    size_t count = 0;
    for (long i = 0; i < n / 8; i++)
        count += (size_t)__builtin_popcountll(mask[i]);
    return count ? count : 1;
}


size_t cg_os_read_small(const char *path, char *buf, size_t cap)
{
    long fd = SYS(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (cap == 0 || sys_failed(fd))
        return 0;
    long n = SYS(SYS_read, fd, buf, cap - 1, 0, 0, 0);
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    if (sys_failed(n) || n <= 0)
        return 0;
    buf[n] = '\0';
    return (size_t)n;
}

/* The decimal number at q (after blanks), as /proc writes them; 0 when
 * there is none. */
static size_t proc_number(const char *q)
{
    size_t v = 0;
    while (*q == ' ' || *q == '\t')
        q++;
    for (; *q >= '0' && *q <= '9'; q++)
        v = v * 10 + (size_t)(*q - '0');
    return v;
}

size_t cg_os_nthreads(void)
{
    char buf[2048];
    if (cg_os_read_small("/proc/self/status", buf, sizeof buf) == 0)
        return 0;
    for (const char *q = buf; *q; q++)
        if ((q == buf || q[-1] == '\n') && __builtin_strncmp(q, "Threads:", 8) == 0)
            return proc_number(q + 8);
    return 0;
}

size_t cg_os_max_map_count(void)
{
    char buf[32];
    size_t v = cg_os_read_small("/proc/sys/vm/max_map_count", buf, sizeof buf) > 0
               ? proc_number(buf) : 0;
    return v > 0 ? v : 65530;
}

long cg_os_futex_wait(uint32_t *addr, uint32_t val, int64_t timeout_ns)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000);
        ts.tv_nsec = (long)(timeout_ns % 1000000000);
        tp = &ts;
    }
    return SYS(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, tp, 0, 0);
}

void cg_os_futex_wake(uint32_t *addr)
{
    SYS(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

void cg_os_futex_wake_all(uint32_t *addr)
{
    SYS(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT32_MAX, 0, 0, 0);
}

CG_FORK_PATH uint32_t cg_os_gettid(void)
{
    return (uint32_t)SYS(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

CG_FORK_PATH uint64_t cg_os_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

CG_HOT_TEXT int cg_os_getpid(void)
{
    return (int)sys6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

/*
 * The environment.  libc sets `environ` in its own initialisation, which
 * the dynamic loader runs after the program's .preinit_array functions:
 * a first malloc made there (clang's -fsanitize=fuzzer runtime starts
 * from .preinit_array and allocates, docs/fuzzing.md) starts chunkguard
 * while `environ` is still NULL and getenv finds nothing.  The kernel's
 * vector is there all along, on the initial stack that the loader's
 * __libc_stack_end points to: argc, argv[argc] and its NULL, envp and its
 * NULL, then the auxiliary vector.  That vector is used while `environ`
 * is NULL, and only when its auxiliary vector is the one getauxval reads
 * (the same AT_RANDOM pointer), so a layout not as described gives no
 * environment rather than a wrong one.  Once libc has set `environ`, it
 * is used, with the program's setenv/putenv changes.
 */
extern char **environ;
extern void *__libc_stack_end __attribute__((weak));

#define INITIAL_ARGS_MAX (1L << 20)     /* bounds of the walk: argc, envc */
#define INITIAL_AUXV_MAX 256            /* auxiliary vector entries */

static char **initial_environ(void)
{
    if (&__libc_stack_end == NULL || __libc_stack_end == NULL)
        return NULL;
    unsigned long random = cg_os_getauxval(AT_RANDOM);
    if (random == 0)
        return NULL;
    long *sp = __libc_stack_end;
    long argc = sp[0];
    if (argc < 0 || argc > INITIAL_ARGS_MAX)
        return NULL;
    char **argv = (char **)(sp + 1);
    if (argv[argc] != NULL)
        return NULL;
    char **envp = argv + argc + 1;
    long n = 0;
    while (envp[n] != NULL)
        if (++n > INITIAL_ARGS_MAX)
            return NULL;
    const unsigned long *aux = (const unsigned long *)(envp + n + 1);
    for (int i = 0; i < INITIAL_AUXV_MAX && aux[2 * i] != AT_NULL; i++)
        if (aux[2 * i] == AT_RANDOM)
            return aux[2 * i + 1] == random ? envp : NULL;
    return NULL;
}

/* The vector to read: libc's once set, else the kernel's (above). */
static char **process_environ(void)
{
    char **e = __atomic_load_n(&environ, __ATOMIC_RELAXED);
    return e != NULL ? e : initial_environ();
}

CG_HOT_TEXT const char *cg_os_getenv(const char *name)
{
    size_t n = strlen(name);
    char **e = process_environ();
    for (; e != NULL && *e != NULL; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

CG_HOT_TEXT unsigned long cg_os_getauxval(unsigned long type)
{
    int saved = errno;
    unsigned long v = getauxval(type);
    errno = saved;
    return v;
}

void cg_os_abort(void)
{
    abort();
}

CG_FORK_PATH void cg_os_exit(int status)
{
    /* The system call itself, as glibc's _exit makes it: chunkguard
     * exports _exit (entry/interpose.c), and a call by name could bind to
     * that and check the heap again on the way out of a report. */
    for (;;) {
        SYS(SYS_exit_group, status, 0, 0, 0, 0, 0);
        SYS(SYS_exit, status, 0, 0, 0, 0, 0);
    }
}

void cg_os_sleep_ms(unsigned ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    SYS(SYS_nanosleep, &ts, 0, 0, 0, 0, 0);
}

void cg_os_yield(void)
{
    SYS(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

bool cg_os_write_file(const char *path, const char *buf, size_t len, bool append)
{
    /* O_NONBLOCK: a FIFO nobody has open for reading fails at once
     * (ENXIO) instead of waiting for a reader for ever; one that is open
     * is written as a pipe (write_loop's deadline) */
    long fd = SYS(SYS_openat, AT_FDCWD, path,
                  O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | (append ? O_APPEND : O_TRUNC),
                  0644, 0, 0);
    if (sys_failed(fd)) {
        errno = (int)-fd;
        return false;
    }
    size_t done = write_loop((int)fd, buf, len);
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    return done == len;
}

bool cg_os_start_file(const char *path, const char *buf, size_t len)
{
    /* The usual case, a new file: made with O_EXCL, it is a regular file */
    long fd = SYS(SYS_openat, AT_FDCWD, path,
                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644, 0, 0);
    if (fd == -EEXIST) {
        /* a program exec'd by this process: its file is there already.
         * O_NONBLOCK: a FIFO with no reader is refused (ENXIO) rather
         * than waited for; one with a reader, or a device, is left
         * alone below */
        struct stat sb;
        fd = SYS(SYS_openat, AT_FDCWD, path,
                 O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0, 0, 0);
        if (!sys_failed(fd) &&
            (sys_failed(SYS(SYS_fstat, fd, &sb, 0, 0, 0, 0)) || !S_ISREG(sb.st_mode))) {
            SYS(SYS_close, fd, 0, 0, 0, 0, 0);
            return false;
        }
    }
    if (sys_failed(fd))
        return false;
    /* one write: a short one (a full disk) leaves a cut line, which a
     * reader takes for what it is */
    long w = SYS(SYS_write, fd, buf, len, 0, 0, 0);
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    return w == (long)len;
}

const char *cg_os_errno_name(int e)
{
    switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EIO: return "EIO";
    case EACCES: return "EACCES";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ETXTBSY: return "ETXTBSY";
    case EFBIG: return "EFBIG";
    case ENOSPC: return "ENOSPC";
    case EROFS: return "EROFS";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ELOOP: return "ELOOP";
    case EDQUOT: return "EDQUOT";
    case ENXIO: return "ENXIO";
    case EFAULT: return "EFAULT";
    default: return "an error";
    }
}

size_t cg_os_readlink(const char *path, char *buf, size_t cap)
{
    if (cap == 0)
        return 0;
    long n = SYS(SYS_readlinkat, AT_FDCWD, path, buf, cap - 1, 0, 0);
    if (sys_failed(n))
        n = 0;
    buf[n] = '\0';
    return (size_t)n;
}

/* The program's path (cg_os_exe): read once, at init or the first call. */
static char exe_path[CG_OS_EXE_MAX];
static bool exe_read;

CG_HOT_TEXT const char *cg_os_exe(void)
{
    if (!__atomic_load_n(&exe_read, __ATOMIC_ACQUIRE)) {
        cg_os_readlink("/proc/self/exe", exe_path, sizeof exe_path);
        __atomic_store_n(&exe_read, true, __ATOMIC_RELEASE);
    }
    return exe_path;
}

int cg_os_open_file(const char *path, cg_os_file_id_t *id)
{
    /* O_NONBLOCK: opening a FIFO (or a device) must not wait for a
     * writer; it is then refused below, as everything but a regular file */
    long fd = SYS(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0, 0, 0);
    if (sys_failed(fd))
        return -1;
    struct stat sb;
    if (sys_failed(SYS(SYS_fstat, fd, &sb, 0, 0, 0, 0)) || !S_ISREG(sb.st_mode) ||
        sb.st_size <= 0) {
        SYS(SYS_close, fd, 0, 0, 0, 0, 0);
        return -1;
    }
    *id = (cg_os_file_id_t){ .dev = sb.st_dev, .ino = sb.st_ino, .size = (size_t)sb.st_size,
                             .mtime_sec = sb.st_mtim.tv_sec, .mtime_nsec = sb.st_mtim.tv_nsec };
    return (int)fd;
}

const void *cg_os_map_fd(int fd, size_t len)
{
    long r = SYS(SYS_mmap, 0, len, PROT_READ, MAP_PRIVATE, fd, 0);
    return sys_failed(r) ? NULL : (const void *)r;
}

void cg_os_close(int fd)
{
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* ---- a helper program (platform.h, "A helper program to talk to") ---- */

bool cg_os_find_program(const char *name, char *buf, size_t cap)
{
    const char *path = cg_os_getenv("PATH");
    if (path == NULL)
        path = "/usr/bin:/bin";
    size_t nlen = strlen(name);
    for (const char *d = path;; d++) {
        const char *end = d;
        while (*end && *end != ':')
            end++;
        size_t dlen = (size_t)(end - d);
        if (dlen == 0) {            /* an empty entry is the working directory */
            d = ".";
            dlen = 1;
        }
        if (dlen + 1 + nlen < cap) {
            memcpy(buf, d, dlen);
            buf[dlen] = '/';
            memcpy(buf + dlen + 1, name, nlen + 1);
            struct stat sb;
            if (!sys_failed(SYS(SYS_newfstatat, AT_FDCWD, buf, &sb, 0, 0, 0)) &&
                S_ISREG(sb.st_mode) &&
                !sys_failed(SYS(SYS_faccessat, AT_FDCWD, buf, X_OK, 0, 0, 0)))
                return true;
        }
        if (*end == 0)
            break;
        d = end;
    }
    if (cap)
        buf[0] = 0;
    return false;
}

/* fd moved to a number above 2 (close-on-exec), so that the child's dup2
 * onto 0, 1 and 2 cannot overwrite it: a process may run with 0-2 closed. */
static int fd_above2(int fd)
{
    if (fd > 2)
        return fd;
    long n = SYS(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3, 0, 0, 0);
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    return sys_failed(n) ? -1 : (int)n;
}

/* The child's environment: ours without LD_PRELOAD, in static storage
 * (one helper at a time: the caller serialises). */
#define COPROC_ENV_MAX 1024
static CG_BIG_BSS const char *coproc_env[COPROC_ENV_MAX + 1];

/* x86_64's struct sigaction as the kernel takes it. */
typedef struct ksigaction {
    uintptr_t handler;
    unsigned long flags;
    uintptr_t restorer;
    uint64_t mask;
} ksigaction_t;

/* The helper itself (a child of the middle process below): its own
 * process group (a script's children are killed with it), every signal
 * unblocked, then the program or exit 127. */
static _Noreturn void coproc_exec(const char *path, const char *const *argv)
{
    SYS(SYS_setpgid, 0, 0, 0, 0, 0, 0);
    uint64_t none = 0;
    SYS(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, sizeof none, 0, 0);
    SYS(SYS_execve, path, argv, coproc_env, 0, 0, 0);
    for (;;)
        SYS(SYS_exit_group, 127, 0, 0, 0, 0, 0);
}

/*
 * The middle process (a copy of us, every signal blocked): it starts the
 * helper as its own child and waits for it, so that the helper is never a
 * child of the program.  An execve turns the exit signal of the process
 * that makes it into SIGCHLD whatever its clone asked for (Linux sets it
 * on exec: a raw clone with no exit signal, then execve, is a child whose
 * end the program's SIGCHLD handler and waitpid(-1) see), and a grandchild
 * left orphaned is reparented to the nearest subreaper, which may be the
 * program.  The middle one never execs: it ends with no exit signal, only
 * our __WALL wait sees it.  SIGTERM (from cg_os_coproc_end, or on our
 * death: PR_SET_PDEATHSIG) kills the helper's group first; the helper's
 * end, or SIGTERM, ends it, after it reaped the helper.
 */
static _Noreturn void coproc_middle(const char *path, const char *const *argv, int end,
                                    long parent)
{
    for (int sig = 1; sig <= 64; sig++) {
        ksigaction_t old, dfl = { 0, 0, 0, 0 };
        if (sig == SIGKILL || sig == SIGSTOP ||
            sys_failed(SYS(SYS_rt_sigaction, sig, 0, &old, 8, 0, 0)))
            continue;
        /* SIGCHLD's too when ignored: the helper must stay to be reaped */
        if ((old.handler != (uintptr_t)SIG_DFL && old.handler != (uintptr_t)SIG_IGN) ||
            sig == SIGCHLD)
            SYS(SYS_rt_sigaction, sig, &dfl, 0, 8, 0, 0);
    }
    SYS(SYS_prctl, PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0, 0);
    bool orphan = SYS(SYS_getppid, 0, 0, 0, 0, 0, 0) != parent;   /* died already */
    SYS(SYS_dup2, end, 0, 0, 0, 0, 0);
    SYS(SYS_dup2, end, 1, 0, 0, 0, 0);
    long nul = SYS(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY, 0, 0, 0);
    if (sys_failed(nul))
        SYS(SYS_close, 2, 0, 0, 0, 0, 0);
    else if (nul != 2)
        SYS(SYS_dup2, nul, 2, 0, 0, 0, 0);
    if (sys_failed(SYS(SYS_close_range, 3, ~0u, 0, 0, 0, 0)))
        for (int fd = 3; fd < 1024; fd++)
            SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    long pid = orphan ? -1 : SYS(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
    if (pid == 0)
        coproc_exec(path, argv);
    for (int fd = 0; fd < 3; fd++)      /* the helper alone holds the socket */
        SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    if (sys_failed(pid))
        for (;;)
            SYS(SYS_exit_group, 127, 0, 0, 0, 0, 0);
    SYS(SYS_setpgid, pid, pid, 0, 0, 0, 0);     /* before any kill of it, too */
    uint64_t set = (1ull << (SIGTERM - 1)) | (1ull << (SIGCHLD - 1));
    int status;
    for (;;) {
        long w = SYS(SYS_wait4, pid, &status, WNOHANG, 0, 0, 0);
        if (w != 0)
            break;                      /* reaped, or gone (ECHILD) */
        if (SYS(SYS_rt_sigtimedwait, &set, 0, 0, 8, 0, 0) == SIGTERM) {
            SYS(SYS_kill, -pid, SIGKILL, 0, 0, 0, 0);
            SYS(SYS_kill, pid, SIGKILL, 0, 0, 0, 0);
            SYS(SYS_wait4, pid, &status, 0, 0, 0, 0);
            break;
        }
    }
    /* what the helper left in its group (a script's daemon, which may hold
     * the socket open) goes too; the group's id stays the helper's while
     * it has members, so this reaches nobody else */
    SYS(SYS_kill, -pid, SIGKILL, 0, 0, 0, 0);
    for (;;)
        SYS(SYS_exit_group, 0, 0, 0, 0, 0, 0);
}

int cg_os_coproc_start(const char *path, const char *const *argv, int *fd)
{
    size_t n = 0;
    for (char **e = process_environ(); e != NULL && *e != NULL && n < COPROC_ENV_MAX; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
            coproc_env[n++] = *e;
    coproc_env[n] = NULL;
    int sv[2];
    long pid = -1;
    if (sys_failed(SYS(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv, 0, 0)))
        return -1;
    sv[0] = fd_above2(sv[0]);
    sv[1] = fd_above2(sv[1]);
    if (sv[0] < 0 || sv[1] < 0 ||
        sys_failed(SYS(SYS_fcntl, sv[0], F_SETFL, O_NONBLOCK, 0, 0, 0))) {
        for (int i = 0; i < 2; i++)
            if (sv[i] >= 0)
                SYS(SYS_close, sv[i], 0, 0, 0, 0, 0);
        return -1;
    }
    /* Every signal blocked across the fork: none of the program's
     * handlers may run in the child before it resets them. */
    uint64_t all = ~(uint64_t)0, old = 0;
    long me = SYS(SYS_getpid, 0, 0, 0, 0, 0, 0);
    SYS(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof all, 0, 0);
    pid = SYS(SYS_clone, 0, 0, 0, 0, 0, 0);     /* a fork: no CLONE_VM, no exit signal */
    if (pid == 0)
        coproc_middle(path, argv, sv[1], me);
    SYS(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, sizeof old, 0, 0);
    SYS(SYS_close, sv[1], 0, 0, 0, 0, 0);
    if (sys_failed(pid)) {
        SYS(SYS_close, sv[0], 0, 0, 0, 0, 0);
        pid = -1;
    } else {
        *fd = sv[0];
    }
    return (int)pid;
}

size_t cg_os_coproc_exchange(int fd, const char *in, size_t inlen, char *out, size_t cap,
                             uint64_t deadline_ns,
                             bool (*complete)(const char *out, size_t got, void *arg),
                             void *arg, bool *done)
{
    size_t sent = 0, got = 0;
    bool writing = true;
    *done = false;
    if (inlen == 0) {
        SYS(SYS_shutdown, fd, SHUT_WR, 0, 0, 0, 0);
        writing = false;
    }
    while (got < cap) {
        uint64_t now = cg_os_now_ns();
        if (now >= deadline_ns)
            break;
        uint64_t left = deadline_ns - now;
        struct timespec ts = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
        struct pollfd p = { fd, (short)(POLLIN | (writing ? POLLOUT : 0)), 0 };
        long r = SYS(SYS_ppoll, &p, 1, &ts, 0, 8, 0);
        if (r == -EINTR || r == 0)
            continue;
        if (sys_failed(r))
            break;
        if (writing && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
            long w = SYS(SYS_sendto, fd, in + sent, inlen - sent, MSG_NOSIGNAL | MSG_DONTWAIT,
                         0, 0);
            if (w > 0)
                sent += (size_t)w;
            if ((sys_failed(w) && w != -EAGAIN && w != -EINTR) || sent == inlen) {
                SYS(SYS_shutdown, fd, SHUT_WR, 0, 0, 0, 0);
                writing = false;
            }
        }
        if (p.revents & (POLLIN | POLLERR | POLLHUP)) {
            long k = SYS(SYS_read, fd, out + got, cap - got, 0, 0, 0);
            if (k == 0) {
                *done = true;
                break;
            }
            if (k > 0) {
                got += (size_t)k;
                if (complete != NULL && complete(out, got, arg)) {
                    *done = true;
                    break;
                }
            } else if (k != -EAGAIN && k != -EINTR) {
                break;
            }
        }
    }
    return got;
}

void cg_os_coproc_end(int pid, int fd, bool ended)
{
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    int status;
    /* after its output ended the helper normally exits at once, and the
     * middle process with it: a moment for that; then the middle one is
     * told to kill the helper's group (a script's children too), and at
     * last killed itself should it not end */
    for (int i = 0; ended && i < 50; i++) {
        if (SYS(SYS_wait4, pid, &status, WNOHANG | __WALL, 0, 0, 0) != 0)
            return;
        cg_os_sleep_ms(1);
    }
    for (int sig = SIGTERM, round = 0; round < 2; round++, sig = SIGKILL) {
        SYS(SYS_kill, pid, sig, 0, 0, 0, 0);
        for (int i = 0; i < 100; i++) {
            if (SYS(SYS_wait4, pid, &status, WNOHANG | __WALL, 0, 0, 0) != 0)
                return;
            cg_os_sleep_ms(1);
        }
    }
}

void cg_os_flush_stdio(void)
{
    int saved = errno;
    fflush(NULL);
    errno = saved;
}

void cg_os_fwrite(FILE *fp, const char *buf, size_t len)
{
    fwrite(buf, 1, len, fp);
}

/* How cg_os_copy_readable copies, found at its first refusal: a seccomp
 * filter (a sandbox) may make process_vm_readv fail with EPERM or ENOSYS,
 * and then /proc/thread-self/mem may not open either. */
enum { COPY_VM, COPY_PIPE, COPY_MEM, COPY_NONE };
static int copy_how = COPY_VM;

static bool refused(long r)
{
    return r == -EPERM || r == -ENOSYS || r == -EACCES;
}

/* pread of the calling thread's own /proc/thread-self/mem (EIO at the
 * first page that is not mapped: the bytes before it are returned).  The
 * kernel reads it with FOLL_FORCE: a PROT_NONE page is read too, so this
 * comes last (a guard page then reads as its bytes, never a fault). */
static long copy_mem(void *dst, const void *src, size_t len)
{
    long fd = SYS(SYS_openat, AT_FDCWD, "/proc/thread-self/mem", O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (sys_failed(fd))
        return fd;
    long r = SYS(SYS_pread64, fd, dst, len, (long)(uintptr_t)src, 0, 0);
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    return r == -EIO ? 0 : r;
}

/* Through a pipe of its own: write(2) copies from src, as far as it is
 * readable (EFAULT before any byte), a page at most at a time (a
 * non-blocking pipe holds at least that). */
static long copy_pipe(void *dst, const void *src, size_t len)
{
    int fds[2];
    long r = SYS(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK, 0, 0, 0, 0);
    if (sys_failed(r))
        return r;
    size_t done = 0;
    while (done < len) {
        size_t want = len - done < 4096 ? len - done : 4096;
        long w = SYS(SYS_write, fds[1], (const char *)src + done, want, 0, 0, 0);
        if (w <= 0)
            break;
        long got = SYS(SYS_read, fds[0], (char *)dst + done, (size_t)w, 0, 0, 0);
        if (got != w)
            break;
        done += (size_t)w;
        if ((size_t)w < want)
            break;
    }
    SYS(SYS_close, fds[0], 0, 0, 0, 0, 0);
    SYS(SYS_close, fds[1], 0, 0, 0, 0, 0);
    return (long)done;
}

size_t cg_os_copy_readable(void *dst, const void *src, size_t len)
{
    struct iovec local = { dst, len };
    struct iovec remote = { (void *)src, len };
    long r = -ENOSYS;
    switch (__atomic_load_n(&copy_how, __ATOMIC_RELAXED)) {
    case COPY_VM: {
        /* Addressed to the calling thread's own id, asked each time: a
         * forked child must not read its parent, and after the main
         * thread's pthread_exit the process id names a zombie thread with
         * no memory (every read fails with ESRCH: a leak check then read
         * no global). */
        long tid = SYS(SYS_gettid, 0, 0, 0, 0, 0, 0);
        r = SYS(SYS_process_vm_readv, tid, &local, 1, &remote, 1, 0);
        if (!refused(r))
            break;
        __atomic_store_n(&copy_how, COPY_PIPE, __ATOMIC_RELAXED);
    }   /* fall through */
    case COPY_PIPE:
        r = copy_pipe(dst, src, len);
        if (!refused(r))
            break;
        __atomic_store_n(&copy_how, COPY_MEM, __ATOMIC_RELAXED);
        /* fall through */
    case COPY_MEM:
        r = copy_mem(dst, src, len);
        if (!refused(r))
            break;
        __atomic_store_n(&copy_how, COPY_NONE, __ATOMIC_RELAXED);
        /* fall through */
    default:
        break;
    }
    return sys_failed(r) ? 0 : (size_t)r;
}

bool cg_os_copy_works(void)
{
    uintptr_t here = (uintptr_t)&copy_how, got = 0;
    return cg_os_copy_readable(&got, &here, sizeof got) == sizeof got && got == here;
}

const char *cg_os_copy_method(void)
{
    static const char *const names[] = { "process_vm_readv", "a pipe", "/proc/thread-self/mem",
                                         "none" };
    return names[__atomic_load_n(&copy_how, __ATOMIC_RELAXED)];
}

bool cg_os_readable(const void *addr)
{
    unsigned char tmp;
    return cg_os_copy_readable(&tmp, addr, 1) == 1;
}

bool cg_os_protect(void *p, size_t len, int prot)
{
    return !sys_failed(SYS(SYS_mprotect, p, len, prot, 0, 0, 0));
}

bool cg_os_altstack(void *sp, size_t size, void **old_sp)
{
    stack_t now, ss = { .ss_sp = sp, .ss_size = size, .ss_flags = sp ? 0 : SS_DISABLE };
    /* one call: the kernel gives the old stack back as it sets the new */
    if (sys_failed(SYS(SYS_sigaltstack, sp == (void *)1 ? 0 : &ss, &now, 0, 0, 0, 0)))
        return false;
    *old_sp = (now.ss_flags & SS_DISABLE) ? NULL : now.ss_sp;
    return true;
}

CG_FORK_PATH size_t cg_os_altstack_room(uintptr_t sp)
{
    stack_t now;
    if (sys_failed(SYS(SYS_sigaltstack, 0, &now, 0, 0, 0, 0)) || !(now.ss_flags & SS_ONSTACK))
        return SIZE_MAX;
    uintptr_t lo = (uintptr_t)now.ss_sp;
    return sp > lo ? (size_t)(sp - lo) : 0;
}

/* The main thread's stack may grow down to its top less RLIMIT_STACK
 * (the kernel's limit on the stack mapping's size); its top is the page
 * end above the program's file name, which exec puts at the very top of
 * the stack (AT_EXECFN).  0: not known, or no limit. */
static uintptr_t main_stack_floor(void)
{
    uintptr_t name = (uintptr_t)cg_os_getauxval(AT_EXECFN);
    struct rlimit rl;
    if (name == 0 || sys_failed(SYS(SYS_prlimit64, 0, RLIMIT_STACK, 0, &rl, 0, 0)) ||
        rl.rlim_cur == RLIM_INFINITY)
        return 0;
    uintptr_t top = CG_PAGE_ROUND(name + 1);
    return top > rl.rlim_cur ? top - rl.rlim_cur : 0;
}

size_t cg_os_stack_room(uintptr_t sp, size_t want)
{
    size_t room = cg_os_altstack_room(sp);
    if (room != SIZE_MAX)
        return room;
    /* The thread's own stack: readable page by page below sp (a thread's
     * stack is mapped whole, its guard page below it is not readable). */
    uintptr_t page = sp & ~(uintptr_t)(cg_pagesize - 1);
    room = sp - page;
    while (room < want && page >= cg_pagesize) {
        page -= cg_pagesize;
        if (!cg_os_readable((const void *)page))
            break;
        room += cg_pagesize;
    }
    if (room >= want || cg_os_gettid() != (uint32_t)cg_os_getpid())
        return room < want ? room : want;
    /* The main thread's stack has pages it has not grown into yet. */
    uintptr_t floor = main_stack_floor();
    if (floor == 0)
        return want;
    room = sp > floor ? (size_t)(sp - floor) : 0;
    return room < want ? room : want;
}

bool cg_os_on_altstack(uintptr_t sp)
{
    stack_t now;
    if (sys_failed(SYS(SYS_sigaltstack, 0, &now, 0, 0, 0, 0)) || (now.ss_flags & SS_DISABLE))
        return false;
    uintptr_t lo = (uintptr_t)now.ss_sp;
    return sp >= lo && sp - lo <= now.ss_size;
}

#if defined(__x86_64__)
/* %rdi fn, %rsi arg, %rdx top.  The caller's %rsp is kept in %rbp, which
 * the CFI names as the frame's base (CFA = %rbp + 16), whatever %rsp does
 * in between: the frame is what libunwind calls a standard frame. */
__asm__(".text\n"
        ".globl cg_os_call_on_stack\n"
        ".hidden cg_os_call_on_stack\n"
        ".type cg_os_call_on_stack, @function\n"
        "cg_os_call_on_stack:\n"
        ".cfi_startproc\n"
        "    pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "    movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "    testq %rdx, %rdx\n"
        "    cmovneq %rdx, %rsp\n"
        "    andq $-16, %rsp\n"
        "    movq %rdi, %rax\n"
        "    movq %rsi, %rdi\n"
        "    callq *%rax\n"
        "    movq %rbp, %rsp\n"
        "    popq %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "    ret\n"
        ".cfi_endproc\n"
        ".size cg_os_call_on_stack, .-cg_os_call_on_stack\n");
#else
/* Other ABIs keep the stack aligned in hardware; no switch there. */
void cg_os_call_on_stack(void (*fn)(void *arg), void *arg, void *top)
{
    (void)top;
    fn(arg);
}
#endif

void cg_os_fault_no_stack(int sig)
{
    static const char line[] =
        "==chunkguard: a fault, and the alternate signal stack has no room left for "
        "chunkguard's handler (the stack the program gave sigaltstack is too small); "
        "ending the process with the fault's signal\n";
    static const ksigaction_t dfl = { 0, 0, 0, 0 };      /* SIG_DFL */
    SYS(SYS_write, 2, line, sizeof line - 1, 0, 0, 0);
    SYS(SYS_rt_sigaction, sig, &dfl, 0, 8, 0, 0);
    SYS(SYS_tgkill, SYS(SYS_getpid, 0, 0, 0, 0, 0, 0), SYS(SYS_gettid, 0, 0, 0, 0, 0, 0), sig,
        0, 0, 0);
    SYS(SYS_exit_group, 128 + sig, 0, 0, 0, 0, 0);        /* not reached */
    __builtin_unreachable();
}

bool cg_os_call_on_new_stack(void (*fn)(void *arg), void *arg, size_t size)
{
    size_t len = size + cg_pagesize;
    char *map = cg_os_map(len);
    if (map == NULL)
        return false;
    cg_os_protect(map, cg_pagesize, PROT_NONE);           /* an overflow faults */
    cg_os_call_on_stack(fn, arg, map + len);
    cg_os_unmap(map, len);
    return true;
}

/* glibc's own entry point, not the `sigaction` a runtime may interpose: a
 * libFuzzer build links UBSan's runtime, whose interceptor knows the real
 * function only once that runtime has started — and chunkguard starts
 * inside that start (its dlsym of an optional symbol fails, and the loader
 * mallocs the error message: our first allocation).  The interceptor then
 * printed "REAL(sigaction_symname) == nullptr" and failed the call: no
 * fault handler (docs/fuzzing.md, "Why not sigaction").  Sanitizer builds
 * keep the interceptor: ASan and TSan track handlers through it. */
#ifndef CG_SANITIZER_BUILD
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
#define libc_sigaction __sigaction
#else
#define libc_sigaction sigaction
#endif

CG_HOT_TEXT int cg_os_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int saved = errno;
    int r = libc_sigaction(sig, act, old);
    errno = saved;
    return r;
}

int cg_os_program_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return libc_sigaction(sig, act, old);
}

void cg_os_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    int saved = errno;
    pthread_sigmask(how, set, old);
    errno = saved;
}

void cg_os_resend(int sig)
{
    SYS(SYS_tgkill, cg_os_getpid(), cg_os_gettid(), sig, 0, 0, 0);
}

/* ---- other threads (the leak check's stop) ---------------------------- */

/* The decimal at *s; false when there is none. */
static bool parse_dec(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t r = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        r = r * 10 + (uint64_t)(*p - '0');
    *v = r;
    bool any = p != *s;
    *s = p;
    return any;
}

/* "/proc/self/task/TID/<leaf>" into buf */
static void task_path(char *buf, size_t cap, uint32_t tid, const char *leaf)
{
    static const char head[] = "/proc/self/task/";
    char digits[12];
    size_t nd = 0, n = 0;
    do digits[nd++] = (char)('0' + tid % 10); while ((tid /= 10) > 0);
    for (size_t i = 0; head[i] && n + 1 < cap; i++)
        buf[n++] = head[i];
    while (nd > 0 && n + 1 < cap)
        buf[n++] = digits[--nd];
    if (n + 1 < cap)
        buf[n++] = '/';
    for (size_t i = 0; leaf[i] && n + 1 < cap; i++)
        buf[n++] = leaf[i];
    buf[n] = 0;
}

size_t cg_os_threads(uint32_t *tids, size_t cap)
{
    long fd = SYS(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
    if (sys_failed(fd))
        return 0;
    /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
    _Alignas(8) char buf[4096];
    size_t n = 0;
    for (;;) {
        long got = SYS(SYS_getdents64, fd, buf, sizeof buf, 0, 0, 0);
        if (got == -EINTR)
            continue;
        if (sys_failed(got) || got == 0)
            break;
        for (long off = 0; off < got;) {
            unsigned short reclen;
            __builtin_memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char *name = buf + off + 19;
            uint64_t tid;
            if (parse_dec(&name, &tid) && *name == 0 && tid > 0 && tid <= UINT32_MAX) {
                if (n < cap)
                    tids[n] = (uint32_t)tid;
                n++;
            }
            off += reclen ? reclen : got;
        }
    }
    SYS(SYS_close, fd, 0, 0, 0, 0, 0);
    return n;
}

bool cg_os_thread_signal(uint32_t tid, int sig)
{
    return !sys_failed(SYS(SYS_tgkill, cg_os_getpid(), tid, sig, 0, 0, 0));
}

/* The number in lower-case hex digits at s (no prefix), up to the first
 * other character: /proc's signal masks and stack pointers. */
static uint64_t lower_hex(const char *s)
{
    uint64_t v = 0;
    for (;; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else return v;
        v = v << 4 | d;
    }
}

/* The hex signal set after the line head name (len bytes) in a
 * /proc/self/task/TID/status text, into *mask; false when it is not there. */
static bool status_mask(const char *buf, const char *name, size_t len, uint64_t *out)
{
    for (const char *q = buf; *q; q++) {
        if ((q == buf || q[-1] == '\n') && __builtin_strncmp(q, name, len) == 0) {
            const char *s = q + len;
            while (*s == ' ' || *s == '\t')
                s++;
            *out = lower_hex(s);
            return true;
        }
    }
    return false;
}

bool cg_os_thread_pending(uint32_t tid, int sig)
{
    char path[64], buf[2048];
    task_path(path, sizeof path, tid, "status");
    if (cg_os_read_small(path, buf, sizeof buf) == 0)
        return false;
    uint64_t mask = 0;
    return sig >= 1 && sig <= 64 && status_mask(buf, "SigPnd:", 7, &mask) && (mask >> (sig - 1) & 1);
}

int cg_os_thread_status(uint32_t tid, int sig)
{
    char path[64], buf[2048];
    task_path(path, sizeof path, tid, "status");
    if (cg_os_read_small(path, buf, sizeof buf) == 0)
        return CG_OS_THREAD_GONE;
    int st = CG_OS_THREAD_MASKED;
    for (const char *q = buf; *q; q++) {
        if (q != buf && q[-1] != '\n')
            continue;
        if (__builtin_strncmp(q, "State:", 6) == 0) {
            const char *s = q + 6;
            while (*s == ' ' || *s == '\t')
                s++;
            if (*s == 'Z' || *s == 'X')
                return CG_OS_THREAD_GONE;
        }
    }
    uint64_t mask;
    if (status_mask(buf, "SigBlk:", 7, &mask))
        st = sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1) ? CG_OS_THREAD_MASKED
                                                              : CG_OS_THREAD_RUNS;
    return st;
}

uintptr_t cg_os_thread_syscall_sp(uint32_t tid)
{
    /* "nr arg1 ... arg6 sp pc" in a syscall; "running" or "-1 sp pc" (not
     * in one) otherwise */
    char path[64], buf[512];
    task_path(path, sizeof path, tid, "syscall");
    if (cg_os_read_small(path, buf, sizeof buf) == 0 || buf[0] < '0' || buf[0] > '9')
        return 0;
    const char *fields[9];
    size_t nf = 0;
    for (const char *s = buf; *s && nf < 9;) {
        while (*s == ' ')
            s++;
        if (*s == 0 || *s == '\n')
            break;
        fields[nf++] = s;
        while (*s && *s != ' ' && *s != '\n')
            s++;
    }
    if (nf != 9)
        return 0;
    const char *s = fields[7];
    if (s[0] != '0' || s[1] != 'x')
        return 0;
    return (uintptr_t)lower_hex(s + 2);
}

uintptr_t cg_os_exit_function(void)
{
    return (uintptr_t)&exit;
}

static void (*stop_fn)(const void *ucontext);

/* The signals the leak check holds now: taken for one check and given
 * back after it, with the action the program had (a signal still pending
 * on some thread stays held until the next check gives it back). */
#define STOP_HELD 4
static struct held {
    int sig;                       /* 0: a free entry                       */
    struct sigaction old;          /* the action before (the default)       */
} held[STOP_HELD];

static void stop_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    int saved = errno;
    void (*fn)(const void *) = __atomic_load_n(&stop_fn, __ATOMIC_ACQUIRE);
    if (fn != NULL && si != NULL && si->si_code == SI_TKILL && si->si_pid == cg_os_getpid())
        fn(uc);
    errno = saved;
}

bool cg_os_stop_signal_held(int sig)
{
    struct sigaction now;
    return sig != 0 && cg_os_sigaction(sig, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
           now.sa_sigaction == stop_handler;
}

static struct held *held_entry(int sig)
{
    for (int i = 0; i < STOP_HELD; i++)
        if (held[i].sig == sig)
            return &held[i];
    return NULL;
}

int cg_os_stop_signal_take(void (*fn)(const void *ucontext), int avoid)
{
    __atomic_store_n(&stop_fn, fn, __ATOMIC_RELEASE);
    /* one kept from a check before (still pending somewhere), if the
     * program has not taken it since */
    for (int i = 0; i < STOP_HELD; i++)
        if (held[i].sig != 0 && held[i].sig != avoid) {
            if (cg_os_stop_signal_held(held[i].sig))
                return held[i].sig;
            held[i].sig = 0;           /* the program's now: not ours to restore */
        }
    struct held *h = held_entry(0);
    if (h == NULL)
        return 0;
    struct sigaction old, sa;
    __builtin_memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = stop_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--) {
        if (sig == avoid || held_entry(sig) != NULL ||
            cg_os_sigaction(sig, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        if (cg_os_sigaction(sig, &sa, NULL) == 0) {
            h->sig = sig;
            h->old = old;
            return sig;
        }
    }
    return 0;
}

void cg_os_stop_signal_give_back(uint64_t keep)
{
    for (int i = 0; i < STOP_HELD; i++) {
        int sig = held[i].sig;
        if (sig == 0 || (sig <= 64 && (keep >> (sig - 1) & 1)))
            continue;
        /* only if it is still ours: an action the program set meanwhile
         * is the program's */
        if (cg_os_stop_signal_held(sig))
            cg_os_sigaction(sig, &held[i].old, NULL);
        held[i].sig = 0;
    }
}

/* The masked-section registry: one slot per thread inside such a
 * section now, (tid << 32 | depth), a cache line each (the owner's CAS
 * shares no line).  A slot at depth 0 is free for any thread to take;
 * its owner, finding its tid gone from it, takes another. */
#define SECT_SLOTS 256
static CG_BIG_BSS struct { uint64_t word; char pad[56]; } sect[SECT_SLOTS];

bool cg_os_section_enter(void)
{
    /* a single-threaded process has no one to stop it, and its paths
     * take no atomic (tools/check-fastpath.sh) */
    if (CG_SINGLE_THREAD_P)
        return false;
    uint64_t me = (uint64_t)cg_os_gettid() << 32;
    int i = (int)cg_self.sect_slot - 1;
    if (i >= 0) {
        uint64_t w = __atomic_load_n(&sect[i].word, __ATOMIC_RELAXED);
        while ((w & ~(uint64_t)0xffffffff) == me)
            if (__atomic_compare_exchange_n(&sect[i].word, &w, w + 1, false, __ATOMIC_SEQ_CST,
                                            __ATOMIC_RELAXED))
                return true;
    }
    cg_self.sect_slot = 0;
    for (i = 0; i < SECT_SLOTS; i++) {
        uint64_t w = __atomic_load_n(&sect[i].word, __ATOMIC_RELAXED);
        if ((w & 0xffffffff) == 0 &&
            __atomic_compare_exchange_n(&sect[i].word, &w, me | 1, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
            cg_self.sect_slot = (uint16_t)(i + 1);
            return true;
        }
    }
    /* all taken: not registered (the leak check then takes the thread
     * for one that blocks the signal for good) */
    return false;
}

void cg_os_section_leave(bool entered)
{
    int i = (int)cg_self.sect_slot - 1;
    if (!entered || i < 0)
        return;
    uint64_t me = (uint64_t)cg_os_gettid() << 32;
    uint64_t w = __atomic_load_n(&sect[i].word, __ATOMIC_RELAXED);
    while ((w & ~(uint64_t)0xffffffff) == me && (w & 0xffffffff) != 0)
        if (__atomic_compare_exchange_n(&sect[i].word, &w, w - 1, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
            return;
}

bool cg_os_in_section(uint32_t tid)
{
    for (int i = 0; i < SECT_SLOTS; i++) {
        uint64_t w = __atomic_load_n(&sect[i].word, __ATOMIC_SEQ_CST);
        if (w >> 32 == tid && (w & 0xffffffff) != 0)
            return true;
    }
    return false;
}

void cg_os_ucontext_unmask(const void *ucontext)
{
    /* the kernel's mask is the first 8 bytes of glibc's sigset_t */
    const ucontext_t *uc = ucontext;
    SYS(SYS_rt_sigprocmask, SIG_SETMASK, &uc->uc_sigmask, 0, sizeof(uint64_t), 0, 0);
}

size_t cg_os_ucontext_regs(const void *ucontext, uintptr_t *regs, size_t cap, uintptr_t *sp)
{
    const ucontext_t *uc = ucontext;
    size_t n = 0;
#if defined(__x86_64__)
    *sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
    for (int i = 0; i < NGREG && n < cap; i++)
        regs[n++] = (uintptr_t)uc->uc_mcontext.gregs[i];
#elif defined(__aarch64__)
    *sp = (uintptr_t)uc->uc_mcontext.sp;
    for (int i = 0; i < 31 && n < cap; i++)
        regs[n++] = (uintptr_t)uc->uc_mcontext.regs[i];
#else
    (void)uc; (void)regs; (void)cap;
    *sp = 0;
#endif
    return n;
}

/* A statically linked executable (-static, -static-pie) has no dynamic
 * loader: the kernel gives it no interpreter, so AT_BASE is 0.  dlopen
 * there loads the shared libc a library needs as a second copy, never
 * initialised, and the library's first call into it faults (libunwind did,
 * inside debug mode's first stack capture).  So such a process gets NULL,
 * as for a library that is not installed, and its callers take their
 * fallback (stack.c: the caller's address only). */
void *cg_os_dlopen(const char *name)
{
    if (cg_os_getauxval(AT_BASE) == 0)
        return NULL;
    return dlopen(name, RTLD_NOW | RTLD_LOCAL);
}

void *cg_os_dlsym(void *handle, const char *name)
{
    return dlsym(handle, name);
}

void *cg_os_cxx_function(const char *name, bool lib_only)
{
    int saved = errno;
    void *fn = NULL;
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (h != NULL) {
        fn = dlsym(h, name);      /* the handle's own scope: libstdc++ first */
        dlclose(h);               /* the count NOLOAD took; still loaded */
    }
    if (fn == NULL && !lib_only)
        fn = dlsym(RTLD_DEFAULT, name);
    errno = saved;
    return fn;
}

void *cg_os_global_function(const char *name)
{
    int saved = errno;
    void *fn = dlsym(RTLD_DEFAULT, name);
    errno = saved;
    return fn;
}

int cg_os_each_module(int (*cb)(struct dl_phdr_info *info, size_t size, void *arg), void *arg)
{
    return dl_iterate_phdr(cb, arg);
}

ssize_t cg_os_libc_read(int fd, void *buf, size_t n)
{
    return read(fd, buf, n);
}

ssize_t cg_os_libc_write(int fd, const void *buf, size_t n)
{
    return write(fd, buf, n);
}

long cg_os_libc_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
    return syscall(nr, a, b, c, d, e, f);
}

_Static_assert(sizeof(pthread_key_t) == sizeof(unsigned), "cg_os_thread_key's key is a pthread_key_t");

CG_HOT_TEXT bool cg_os_thread_key(unsigned *key, void (*destructor)(void *value))
{
    pthread_key_t k;
    if (pthread_key_create(&k, destructor) != 0)
        return false;
    *key = (unsigned)k;
    return true;
}

CG_HOT_TEXT void cg_os_thread_key_set(unsigned key, void *value)
{
    pthread_setspecific((pthread_key_t)key, value);
}

/* The definition of name past this object (RTLD_NEXT), looked up once
 * into *cache; NULL if there is none.  entry/interpose.c defines fork and
 * __register_atfork, so a call of either by name (or, for the second,
 * through pthread_atfork) would come back to chunkguard. */
static void *next_symbol(void **cache, const char *name)
{
    void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (fn == NULL && (fn = dlsym(RTLD_NEXT, name)) != NULL)
        __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
    return fn;
}

typedef int (*register_atfork_fn)(void (*)(void), void (*)(void), void (*)(void), void *);
extern void *__dso_handle;
extern pid_t __fork(void);

CG_HOT_TEXT int cg_os_register_atfork_next(void (*prepare)(void), void (*parent)(void),
                                         void (*child)(void), void *dso)
{
    static void *next;
    register_atfork_fn fn = (register_atfork_fn)next_symbol(&next, "__register_atfork");
    return fn != NULL ? fn(prepare, parent, child, dso) : ENOMEM;
}

CG_HOT_TEXT void cg_os_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    cg_os_register_atfork_next(prepare, parent, child, &__dso_handle);
}

int cg_os_thread_create_next(pthread_t *thread, const pthread_attr_t *attr,
                             void *(*fn)(void *), void *arg)
{
    static void *next;
    int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
        (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
            next_symbol(&next, "pthread_create");
    return create != NULL ? create(thread, attr, fn, arg) : EAGAIN;
}

pid_t cg_os_fork(void)
{
    /* The next fork (a library preloaded after chunkguard may wrap it
     * too), else libc's own. */
    static void *next;
    pid_t (*fn)(void) = (pid_t (*)(void))next_symbol(&next, "fork");
    return fn != NULL ? fn() : __fork();
}

int cg_os_detach(int nochdir, int noclose)
{
    if (setsid() < 0)
        return -1;
    /* daemon(3) carries on where it was when "/" cannot be entered */
    int saved = errno;
    if (!nochdir && chdir("/") != 0)
        errno = saved;
    if (noclose)
        return 0;
    int fd = open("/dev/null", O_RDWR | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat sb;
    int e = fstat(fd, &sb) != 0                                     ? errno
            : !S_ISCHR(sb.st_mode) || sb.st_rdev != makedev(1, 3) ? ENODEV
                                                                  : 0;
    if (e != 0) {
        close(fd);
        errno = e;
        return -1;
    }
    for (int to = 0; to <= 2; to++)
        if (fd != to)
            dup2(fd, to);
    if (fd > 2)
        close(fd);
    return 0;
}

bool cg_os_at_quick_exit(void (*fn)(void))
{
    return at_quick_exit(fn) == 0;
}

CG_HOT_TEXT bool cg_os_in_main_program(void)
{
    extern const char __ehdr_start[] __attribute__((visibility("hidden")));
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(const void *)__ehdr_start;
    return (uintptr_t)__ehdr_start + eh->e_phoff == cg_os_getauxval(AT_PHDR);
}

/* Weak: a libc without them leaves the stdio list alone (and such a libc's
 * fork does not take it either). */
extern void _IO_list_lock(void) __attribute__((weak));
extern void _IO_list_unlock(void) __attribute__((weak));
extern void _IO_list_resetlock(void) __attribute__((weak));

CG_FORK_PATH bool cg_os_stdio_list_lock(void)
{
    if (_IO_list_lock == NULL || _IO_list_unlock == NULL || _IO_list_resetlock == NULL)
        return false;
    _IO_list_lock();
    return true;
}

CG_FORK_PATH void cg_os_stdio_list_unlock(void)
{
    _IO_list_unlock();
}

CG_FORK_PATH void cg_os_stdio_list_reset(void)
{
    _IO_list_resetlock();
}

/* Kernel signal sets: bit n - 1 for signal n, 8 bytes on Linux. */
#define SIGBIT(n) ((uint64_t)1 << ((n) - 1))

CG_FORK_PATH void cg_os_block_async_signals(uint64_t *old)
{
    const uint64_t keep = SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | SIGBIT(SIGFPE) |
                          SIGBIT(SIGTRAP) | SIGBIT(SIGSYS) | SIGBIT(SIGABRT) | SIGBIT(SIGKILL) |
                          SIGBIT(SIGSTOP) | SIGBIT(32) | SIGBIT(33);
    uint64_t set = ~keep;
    *old = 0;
    SYS(SYS_rt_sigprocmask, SIG_BLOCK, &set, old, sizeof set, 0, 0);
}

CG_FORK_PATH void cg_os_restore_signals(uint64_t old)
{
    SYS(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, sizeof old, 0, 0);
}
