/*
 * platform.h — the only place chunkguard talks to the OS and the compiler's
 * intrinsics: mmap and friends, futex locks, thread identity, raw writes.
 * Nothing here allocates.
 */
#ifndef CG_PLATFORM_H
#define CG_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_LIKELY(x)   __builtin_expect(!!(x), 1)
#define CG_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CG_INLINE      static inline __attribute__((always_inline))
#define CG_NOINLINE    __attribute__((noinline))
#define CG_COLD        __attribute__((cold, noinline))
#define CG_HIDDEN      __attribute__((visibility("hidden")))
/* The shared library keeps the objects that only reports and debug mode run
 * (Makefile COLD_OBJS) in a segment of their own, so a fast-mode process
 * never maps their pages (see the Makefile and docs/performance.md).  The
 * few functions of those objects that run in every process (constructors,
 * destructors, the start-up hook) carry CG_STARTUP to stay with the code
 * every process touches. */
#define CG_STARTUP     __attribute__((cold, noinline, section(".text.cg_startup")))
/* Large zero-initialised arrays (the heap map, report buffers, tables only
 * debug mode fills): placed in .lbss, which the linker puts after .bss, so
 * the small variables every process touches share a few pages instead of
 * being spread between megabytes of untouched arrays. */
#define CG_BIG_BSS     __attribute__((section(".lbss")))
#define CG_TLS         __thread __attribute__((tls_model("initial-exec")))
#define CG_RET_ADDR    ((uintptr_t)__builtin_return_address(0))

/* glibc keeps this true until the first pthread_create (glibc 2.32+). */
extern char __libc_single_threaded;
#define CG_SINGLE_THREAD_P (__libc_single_threaded != 0)

/* Pages.  x86_64 Linux pages are 4 KiB; the value is read at init and the
 * constant below is only the minimum we rely on. */
extern size_t cg_pagesize CG_HIDDEN;
#define CG_PAGE_ROUND(n) (((n) + cg_pagesize - 1) & ~(cg_pagesize - 1))

/* mmap wrappers: return NULL on failure (never MAP_FAILED).  cg_os_map
 * maps read-write memory; cg_os_map_aligned maps read-write memory at a
 * multiple of align without reserving swap for it (MAP_NORESERVE: pages
 * cost nothing until touched).  None of these touches errno. */
void *cg_os_map(size_t len) CG_HIDDEN;
void *cg_os_map_aligned(size_t len, size_t align) CG_HIDDEN;
void  cg_os_unmap(void *p, size_t len) CG_HIDDEN;
bool  cg_os_guard(void *p, size_t len) CG_HIDDEN;    /* make PROT_NONE */
void  cg_os_decommit(void *p, size_t len) CG_HIDDEN; /* give pages back, keep RW */
void *cg_os_remap(void *p, size_t oldlen, size_t newlen) CG_HIDDEN; /* mremap, may move */
size_t cg_os_ncpus(void) CG_HIDDEN;                  /* CPUs we may run on, >= 1 */
void  cg_os_write_all(int fd, const char *buf, size_t len) CG_HIDDEN;
uint64_t cg_os_random64(void) CG_HIDDEN;

/*
 * cg_lock_t — a futex lock (Drepper's three-state mutex: 0 free, 1 held,
 * 2 held with waiters).  Not recursive.  Single-threaded callers decide once
 * at the top of an operation to skip it, and pass that decision down: the
 * unlock side never asks "single-threaded?" again.
 */
typedef struct cg_lock {
    uint32_t state;     /* 0 free, 1 held, 2 held and contended */
} cg_lock_t;

#define CG_LOCK_INIT { 0 }

/* How many times cg_lock_slow polls a held lock (with a CPU pause between
 * polls, roughly 4 µs in all) before it sleeps in the kernel.  Arena
 * critical sections last about 100 ns, far less than a futex sleep and
 * wake-up, so a short spin saves the two context switches that a contended
 * acquisition otherwise costs (measured on the two-thread bench row; see
 * docs/performance.md).  The idea is glibc's adaptive mutex
 * (PTHREAD_MUTEX_ADAPTIVE_NP), bounded by a constant here. */
#ifndef CG_LOCK_SPIN
#define CG_LOCK_SPIN 100
#endif

#if defined(__x86_64__) || defined(__i386__)
#define CG_CPU_RELAX() __builtin_ia32_pause()
#else
#define CG_CPU_RELAX() __asm__ __volatile__("" ::: "memory")
#endif

void cg_lock_slow(cg_lock_t *l) CG_HIDDEN;
void cg_unlock_wake(cg_lock_t *l) CG_HIDDEN;

CG_INLINE void cg_lock(cg_lock_t *l)
{
    uint32_t zero = 0;
    if (!__atomic_compare_exchange_n(&l->state, &zero, 1, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        cg_lock_slow(l);
}

CG_INLINE void cg_unlock(cg_lock_t *l)
{
    if (__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2)
        cg_unlock_wake(l);
}

/* Counters shared between threads: an atomic add only when the operation
 * runs multi-threaded, so the single-threaded path stays free of locked
 * instructions.  Evaluates to the new value. */
#define CG_ADD_IF(p, v, mt) \
    ((mt) ? __atomic_add_fetch((p), (v), __ATOMIC_RELAXED) : (*(p) += (v)))

/* Shared words read without the lock that serialises their writers
 * (parameters, statistics, heap sizes): relaxed atomics, plain movs on
 * x86_64, so that such reads are well-defined and ThreadSanitizer-clean. */
#define CG_LOAD(x)     __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define CG_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Reset after fork in the child: the holder thread does not exist there. */
CG_INLINE void cg_lock_reinit(cg_lock_t *l) { l->state = 0; }

/* Lock taken only when the operation decided it runs multi-threaded. */
CG_INLINE void cg_lock_if(cg_lock_t *l, bool mt) { if (mt) cg_lock(l); }
CG_INLINE void cg_unlock_if(cg_lock_t *l, bool mt) { if (mt) cg_unlock(l); }

#endif /* CG_PLATFORM_H */
