/*
 * bench.h — helpers shared by the benchmark programs in bench/.
 *
 * Every program follows one protocol so that bench/run.py can drive them all
 * alike:
 *   argv:   PROG VARIANT ITERS     (ITERS = timed outer iterations, > 0)
 *   stdout: exactly one line
 *     BENCH workload=NAME ops=N ns=T ns_per_op=X cpu_ns=C cpu_ns_per_op=Y hwm_kb=K
 *           malloc_from=PATH check=H
 *   exit:   0 on success, 2 on bad arguments, 1 on an allocation failure or
 *           a wrong calloc result.
 *
 * An "operation" is one call into the allocator (malloc, free, calloc,
 * realloc), so rows with different mixes stay comparable.  Only the timed
 * loop is counted and timed; the warm-up before it is not.
 *
 * The timed loop of every program lives in a function whose name starts with
 * "timed_", and nothing else has that prefix: run.py gives callgrind
 * --toggle-collect=timed_* so that its instruction count covers exactly the
 * timed loop (and the allocator code it calls) and not process start-up,
 * dynamic loading or the warm-up.  Warm-up runs the same loop body through a
 * "warmup_" function for that reason.
 */
#ifndef CG_BENCH_H
#define CG_BENCH_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Keep gcc from proving a block unused and deleting a malloc/free pair
 * (it does so at -O2 since gcc 10): the pointer escapes into an asm. */
#define BENCH_ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

/* Loop bodies are written once and inlined into both the warm-up and the
 * timed wrapper, so both run identical code.  The wrappers must stay real,
 * separately named functions for callgrind's --toggle-collect: noinline alone
 * is not enough, gcc's identical-code folding merges the two identical
 * wrappers into one symbol, hence noipa where the compiler has it. */
#define BENCH_BODY static inline __attribute__((always_inline))
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_WRAPPER static __attribute__((noipa))
#else
#define BENCH_WRAPPER static __attribute__((noinline))
#endif

/*
 * bench_time_t - a point in time on two clocks: wall time (CLOCK_MONOTONIC)
 * and the CPU time of the whole process, all threads summed
 * (CLOCK_PROCESS_CPUTIME_ID).  The CPU figure is barely affected by other
 * load on the machine, but does not count time spent blocked (e.g. waiting
 * for a lock held by another thread); run.py uses wall time unless asked.
 */
typedef struct bench_time {
    uint64_t wall_ns;   /* CLOCK_MONOTONIC                               */
    uint64_t cpu_ns;    /* CLOCK_PROCESS_CPUTIME_ID                      */
} bench_time_t;

static inline uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* bench_now - read both clocks. */
static inline bench_time_t bench_now(void)
{
    bench_time_t t = { clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_PROCESS_CPUTIME_ID) };
    return t;
}

/*
 * bench_rng_t - xorshift64*: fast, and the same sequence on every run and
 * under every allocator, so the allocators see identical request streams.
 */
typedef struct bench_rng {
    uint64_t s;     /* state, never 0 */
} bench_rng_t;

static inline uint64_t bench_rng_next(bench_rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

/* bench_rng_below - uniform-enough value in [0, n); n > 0, n < 2^32. */
static inline uint32_t bench_rng_below(bench_rng_t *r, uint32_t n)
{
    return (uint32_t)(((bench_rng_next(r) >> 32) * n) >> 32);
}

/*
 * bench_size_mixed - a request size skewed to small blocks, as programs
 * allocate: 70% in 1..128, 20% in 129..1024, 8% in 1025..8192,
 * 2% in 8193..32768 bytes.  All stay below the 128 KiB mmap threshold, so
 * the heap (bins, coalescing, top) is measured, not mmap.
 */
static inline uint32_t bench_size_mixed(bench_rng_t *r)
{
    uint32_t c = bench_rng_below(r, 100);
    if (c < 70) return 1 + bench_rng_below(r, 128);
    if (c < 90) return 129 + bench_rng_below(r, 1024 - 128);
    if (c < 98) return 1025 + bench_rng_below(r, 8192 - 1024);
    return 8193 + bench_rng_below(r, 32768 - 8192);
}

/* bench_die - report a failure on stderr and exit with status 1. */
static inline void bench_die(const char *what)
{
    fprintf(stderr, "bench: %s\n", what);
    exit(1);
}

/* bench_xmalloc - malloc outside timed loops, exits on failure. */
static inline void *bench_xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) bench_die("out of memory in setup");
    return p;
}

/*
 * bench_parse_iters - parse ITERS (a positive decimal count).
 * Returns the count, or 0 when the text is not a positive number.
 */
static inline unsigned long bench_parse_iters(const char *s)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v == 0) return 0;
    return v;
}

/*
 * bench_malloc_module - the file that the process's malloc symbol resolves
 * to, so the harness can see whether LD_PRELOAD took effect (ld.so only
 * warns and goes on when a preload cannot be loaded).
 */
static inline const char *bench_malloc_module(void)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    if (!sym || !dladdr(sym, &info) || !info.dli_fname) return "unknown";
    return info.dli_fname;
}

/*
 * bench_proc_kb - the number after key (e.g. "VmHWM:") in the /proc file at
 * path, in kB, or -1 if the file or the key cannot be read.  Without stdio,
 * so that it does not allocate.
 */
static inline long bench_proc_kb(const char *path, const char *key)
{
    char buf[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    const char *s = strstr(buf, key);
    return s ? strtol(s + strlen(key), NULL, 10) : -1;
}

/*
 * bench_hwm_kb - this process's peak RSS so far in kB (VmHWM of
 * /proc/self/status), or -1 if unreadable.  run.py compares it with the
 * rusage peak as a check that the latter measures this program and nothing
 * before its exec.
 */
static inline long bench_hwm_kb(void)
{
    return bench_proc_kb("/proc/self/status", "VmHWM:");
}

/*
 * bench_report - print the single result line.
 * @workload: row name; @ops: allocator calls in the timed loop, all threads;
 * @threads: threads that ran the timed loop side by side;
 * @t0, @t1: bench_now() before and after the timed loop;
 * @check: a value derived from the blocks' contents, printed so the work
 * has an observable result.
 * ns is wall time times @threads, so that ns_per_op is the time one thread
 * spends per call on every row; cpu_ns is already summed over threads.
 */
static inline void bench_report(const char *workload, uint64_t ops, unsigned threads,
                                bench_time_t t0, bench_time_t t1, uint64_t check)
{
    if (ops == 0) bench_die("no operations were timed");
    uint64_t ns = (t1.wall_ns - t0.wall_ns) * threads;
    uint64_t cpu_ns = t1.cpu_ns - t0.cpu_ns;
    printf("BENCH workload=%s ops=%llu ns=%llu ns_per_op=%.3f cpu_ns=%llu cpu_ns_per_op=%.3f "
           "hwm_kb=%ld malloc_from=%s check=%llx\n",
           workload, (unsigned long long)ops, (unsigned long long)ns,
           (double)ns / (double)ops, (unsigned long long)cpu_ns,
           (double)cpu_ns / (double)ops, bench_hwm_kb(), bench_malloc_module(),
           (unsigned long long)check);
    fflush(stdout);
}

/* bench_usage - print the usage line and exit with status 2. */
static inline void bench_usage(const char *prog, const char *variants)
{
    fprintf(stderr, "usage: %s {%s} ITERS\n", prog, variants);
    exit(2);
}

#endif /* CG_BENCH_H */
