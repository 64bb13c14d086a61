/*
 * stk_capture.c — cg_stack_capture and cg_stack_prime (src/stack.c): the
 * frames of a known call chain in order, skip and depth, errno, frames
 * without unwind information, libunwind's validation pipe against reused
 * descriptor numbers, no malloc once primed, and no deadlock when a
 * capturing malloc runs under the dynamic loader's lock.
 *
 * Criterion runs every test in a fresh process, so "the first capture" of a
 * test really is the first of its process.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stk_util.h"

/* No inlining, and no gcc clones (stk_grab.constprop.0): frames keep their names. */
#ifdef __clang__
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif
#define NO_TAIL() __asm__ volatile("" ::: "memory")

/* ---- call chains -------------------------------------------------------- */

NOINL static size_t stk_gamma(uintptr_t *pcs, size_t max)
{
    size_t n = cg_stack_capture(pcs, max, 0);
    NO_TAIL();
    return n;
}

NOINL static size_t stk_beta(uintptr_t *pcs, size_t max)
{
    size_t n = stk_gamma(pcs, max);
    NO_TAIL();
    return n;
}

NOINL static size_t stk_alpha(uintptr_t *pcs, size_t max)
{
    size_t n = stk_beta(pcs, max);
    NO_TAIL();
    return n;
}

NOINL static size_t capture_into(void *arg)
{
    size_t n = cg_stack_capture(arg, CG_STACK_MAX, 0);
    NO_TAIL();
    return n;
}

/* Recursion with a page-sized frame per level, so that a capture walks
 * many stack pages (libunwind validates pages it has not seen), ending in a
 * capture made directly or through the frame without unwind information. */
NOINL static size_t stk_deep(int depth, int variant)
{
    volatile char page[4096];
    page[0] = (char)depth;
    size_t n;
    if (depth == 0) {
        uintptr_t pcs[CG_STACK_MAX];
        n = (variant & 1) ? stk_nocfi_call(capture_into, pcs) : capture_into(pcs);
    } else {
        n = stk_deep(depth - 1, variant);
    }
    NO_TAIL();
    return n + (size_t)(page[0] - (char)depth);
}

/* Thirty-two call sites, each a new return address for the unwinder's
 * frame cache (a miss: a DWARF step with memory validation). */
#define STK_SITE(k)                                                  \
    NOINL static size_t stk_site_##k(int variant)                    \
    {                                                                \
        size_t n = stk_deep(6 + (k) % 5, variant + (k));             \
        NO_TAIL();                                                   \
        return n + (k) * 0;                                          \
    }
STK_SITE(0) STK_SITE(1) STK_SITE(2) STK_SITE(3) STK_SITE(4) STK_SITE(5) STK_SITE(6)
STK_SITE(7) STK_SITE(8) STK_SITE(9) STK_SITE(10) STK_SITE(11) STK_SITE(12) STK_SITE(13)
STK_SITE(14) STK_SITE(15) STK_SITE(16) STK_SITE(17) STK_SITE(18) STK_SITE(19) STK_SITE(20)
STK_SITE(21) STK_SITE(22) STK_SITE(23) STK_SITE(24) STK_SITE(25) STK_SITE(26) STK_SITE(27)
STK_SITE(28) STK_SITE(29) STK_SITE(30) STK_SITE(31)

static size_t (*const stk_sites[32])(int) = {
    stk_site_0, stk_site_1, stk_site_2, stk_site_3, stk_site_4, stk_site_5, stk_site_6,
    stk_site_7, stk_site_8, stk_site_9, stk_site_10, stk_site_11, stk_site_12, stk_site_13,
    stk_site_14, stk_site_15, stk_site_16, stk_site_17, stk_site_18, stk_site_19, stk_site_20,
    stk_site_21, stk_site_22, stk_site_23, stk_site_24, stk_site_25, stk_site_26, stk_site_27,
    stk_site_28, stk_site_29, stk_site_30, stk_site_31,
};

/* Captures from every site, both variants; returns the frames seen. */
static size_t capture_everywhere(void)
{
    size_t frames = 0;
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 32; k++)
            frames += stk_sites[k](v);
    return frames;
}

static void *capture_thread(void *arg)
{
    (void)arg;
    return (void *)capture_everywhere();
}

/* Captures from nthreads new threads (each with an empty frame cache, so
 * every frame is a miss); returns the frames seen. */
static size_t capture_in_threads(int nthreads)
{
    pthread_t t[8];
    size_t frames = 0;
    for (int i = 0; i < nthreads && i < 8; i++)
        if (pthread_create(&t[i], NULL, capture_thread, NULL) != 0)
            return 0;
    for (int i = 0; i < nthreads && i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        frames += (size_t)r;
    }
    return frames;
}

/* ---- frames ----------------------------------------------------------- */

Test(capture, chain_names_every_function_in_order)
{
    uintptr_t pcs[CG_STACK_MAX];
    size_t n = stk_alpha(pcs, CG_STACK_MAX);
    cr_assert_geq(n, 4, "only %zu frames", n);
    cg_frame_t f;
    cr_assert_str_eq(stk_name_of(pcs[0], &f), "stk_gamma");
    cr_assert_str_eq(stk_name_of(pcs[1], &f), "stk_beta");
    cr_assert_str_eq(stk_name_of(pcs[2], &f), "stk_alpha");
    cr_assert(strstr(stk_name_of(pcs[3], &f), "chain_names_every_function_in_order") != NULL,
              "frame 3 is '%s'", f.function);
    cr_assert(strstr(f.module, "/stacks/unit") != NULL || strstr(f.module, "/asan/stacks") != NULL,
              "module '%s'", f.module);

    char text[16384];
    cg_format_stack(text, sizeof text, pcs, n, false);
    const char *g = strstr(text, "    #0 0x"), *b = strstr(text, "    #1 0x"),
               *a = strstr(text, "    #2 0x");
    cr_assert(g && b && a && g < b && b < a, "%s", text);
    const char *gn = strstr(text, " in stk_gamma ("), *bn = strstr(text, " in stk_beta ("),
               *an = strstr(text, " in stk_alpha (");
    cr_assert(gn && g < gn && gn < b, "%s", text);
    cr_assert(bn && b < bn && bn < a, "%s", text);
    cr_assert(an && a < an, "%s", text);
}

NOINL static size_t stk_grab(uintptr_t *pcs, size_t max, size_t skip)
{
    size_t n = cg_stack_capture(pcs, max, skip);
    NO_TAIL();
    return n;
}

NOINL static void stk_two_grabs(uintptr_t *a, size_t *na, uintptr_t *b, size_t *nb)
{
    *na = stk_grab(a, 8, 0);
    NO_TAIL();
    *nb = stk_grab(b, 8, 1);
    NO_TAIL();
}

Test(capture, skip_drops_innermost_frames)
{
    uintptr_t a[8], b[8];
    size_t na, nb;
    stk_two_grabs(a, &na, b, &nb);
    cr_assert_geq(na, 3);
    cr_assert_geq(nb, 2);
    cg_frame_t f;
    cr_assert_str_eq(stk_name_of(a[0], &f), "stk_grab");
    cr_assert_str_eq(stk_name_of(a[1], &f), "stk_two_grabs");
    cr_assert_str_eq(stk_name_of(b[0], &f), "stk_two_grabs");
    cr_assert_neq(a[1], b[0], "two call sites, one address");
    cr_assert_eq(b[1], a[2], "skip 1 should drop exactly stk_grab's frame");

    uintptr_t many[CG_STACK_MAX + 8];
    cr_assert_eq(cg_stack_capture(many, 0, 0), 0);
    cr_assert_leq(cg_stack_capture(many, CG_STACK_MAX + 8, 0), CG_STACK_MAX);
    cr_assert_leq(cg_stack_capture(many, 4, CG_STACK_MAX_SKIP + 100), 4);
}

NOINL static uintptr_t stk_depth_one(void)
{
    uintptr_t pc = 0;
    size_t n = cg_stack_capture(&pc, 1, 0);
    NO_TAIL();
    return n == 1 ? pc : 0;
}

NOINL static uintptr_t stk_depth_one_skip_one(void)
{
    uintptr_t pc = 0;
    size_t n = cg_stack_capture(&pc, 1, 1);
    NO_TAIL();
    return n == 1 ? pc : 0;
}

Test(capture, depth_one_is_the_return_address)
{
    cg_frame_t f;
    uintptr_t pc = stk_depth_one();
    cr_assert_str_eq(stk_name_of(pc, &f), "stk_depth_one");
    cr_assert_eq(cg_stack_mode(), CG_STACK_UNPRIMED, "depth 1 should not need the unwinder");
    uintptr_t up = stk_depth_one_skip_one();
    cr_assert(strstr(stk_name_of(up, &f), "depth_one_is_the_return_address") != NULL,
              "skip 1 gave '%s'", f.function);
}

Test(capture, through_a_frame_without_unwind_info)
{
    cg_stack_prime();
    uintptr_t pcs[CG_STACK_MAX];
    size_t n = stk_nocfi_call(capture_into, pcs);
    cg_frame_t f;
    cr_assert_geq(n, 3, "only %zu frames: the frame-chain step (validated reads) failed", n);
    cr_assert_str_eq(stk_name_of(pcs[0], &f), "capture_into");
    cr_assert_str_eq(stk_name_of(pcs[1], &f), "stk_nocfi_call");
    cr_assert(strstr(stk_name_of(pcs[2], &f), "through_a_frame_without_unwind_info") != NULL,
              "frame 2 is '%s'", f.function);
}

/* ---- errno -------------------------------------------------------------- */

static void *errno_thread(void *arg)
{
    (void)arg;
    errno = EXDEV;
    uintptr_t pcs[16];
    stk_alpha(pcs, 16);
    capture_everywhere();
    return (void *)(intptr_t)errno;
}

Test(capture, errno_preserved)
{
    uintptr_t pcs[CG_STACK_MAX];
    cr_assert_eq(cg_stack_mode(), CG_STACK_UNPRIMED);
    errno = ENOTRECOVERABLE;
    size_t n = stk_alpha(pcs, CG_STACK_MAX);      /* primes libunwind */
    cr_assert_geq(n, 3);
    cr_assert_eq(errno, ENOTRECOVERABLE, "the first capture left errno %d", errno);
    errno = EDOM;
    capture_everywhere();
    cr_assert_eq(errno, EDOM, "a capture left errno %d", errno);
    errno = ERANGE;
    cg_stack_prime();
    cr_assert_eq(errno, ERANGE, "priming left errno %d", errno);
    pthread_t t;
    void *r;
    cr_assert_eq(pthread_create(&t, NULL, errno_thread, NULL), 0);
    pthread_join(t, &r);
    cr_assert_eq((int)(intptr_t)r, EXDEV, "a new thread's captures left errno %d", (int)(intptr_t)r);
}

/* ---- descriptors ------------------------------------------------------ */

static int count_fds(int *pipes)
{
    int n = 0;
    *pipes = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[300], link[64];
        snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
        ssize_t l = readlink(p, link, sizeof link - 1);
        link[l > 0 ? l : 0] = 0;
        n++;
        *pipes += strncmp(link, "pipe:", 5) == 0;
    }
    closedir(d);
    return n - 1;   /* the directory's own descriptor */
}

Test(capture, priming_guards_libunwind_and_opens_no_descriptor)
{
    int pipes0, pipes1;
    int fds0 = count_fds(&pipes0);
    cg_stack_prime();
    cr_assert_eq(cg_stack_mode(), CG_STACK_LIBUNWIND, "libunwind's validation could not be redirected");
    capture_everywhere();
    capture_in_threads(2);
    int fds1 = count_fds(&pipes1);
    cr_assert_eq(fds1, fds0, "descriptors: %d before, %d after priming and capturing", fds0, fds1);
    cr_assert_eq(pipes1, pipes0, "pipes: %d before, %d after", pipes0, pipes1);
}

#define STK_NFILES 24

/* The daemon's side, in a child: close every descriptor, open files that get
 * the freed numbers, capture a lot, then check that no file was read from
 * (offset still 0), written to (size and bytes unchanged) or closed.
 * Returns 0 or a code naming what went wrong (and writes a note in dir). */
static int fd_reuse_child(const char *dir)
{
    char path[512], data[64];
    int fds[STK_NFILES];
    size_t len[STK_NFILES];
    for (int fd = 0; fd < 4096; fd++)
        close(fd);
    for (int i = 0; i < STK_NFILES; i++) {
        snprintf(path, sizeof path, "%s/f%d", dir, i);
        fds[i] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fds[i] != i)
            return 2;
        len[i] = (size_t)snprintf(data, sizeof data, "program data of descriptor %d\n", i);
        if (write(fds[i], data, len[i]) != (ssize_t)len[i] || lseek(fds[i], 0, SEEK_SET) != 0)
            return 3;
    }
    size_t frames = 0;
    for (int round = 0; round < 4; round++) {
        frames += capture_everywhere();
        frames += capture_in_threads(4);
    }
    int bad = 0;
    char note[2048];
    size_t nl = 0;
    for (int i = 0; i < STK_NFILES; i++) {
        struct stat sb;
        char got[64];
        snprintf(data, sizeof data, "program data of descriptor %d\n", i);
        off_t off = lseek(fds[i], 0, SEEK_CUR);
        ssize_t r = pread(fds[i], got, sizeof got, 0);
        if (off != 0 || fstat(fds[i], &sb) != 0 || (size_t)sb.st_size != len[i] ||
            r != (ssize_t)len[i] || memcmp(got, data, len[i]) != 0) {
            bad++;
            nl += (size_t)snprintf(note + nl, sizeof note - nl,
                                   "fd %d: offset %lld, size %lld%s; ", i, (long long)off,
                                   (long long)sb.st_size,
                                   r >= 0 && memcmp(got, data, len[i]) != 0 ? ", bytes changed" : "");
            if (nl >= sizeof note)
                nl = sizeof note - 1;
        }
    }
    snprintf(path, sizeof path, "%s/note", dir);
    int nfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (nfd >= 0) {
        char tail[64];
        int tl = snprintf(tail, sizeof tail, "(%zu frames captured)", frames);
        if (write(nfd, note, nl) < 0 || write(nfd, tail, (size_t)tl) < 0)
            bad++;
        close(nfd);
    }
    if (frames < 64 * 5 * 4 * 3)
        return 4;          /* the captures did not really unwind */
    return bad ? 1 : 0;
}

Test(capture, fd_reuse_never_touched)
{
    char dir[] = "/tmp/cg-stk-fds.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cg_stack_prime();               /* at start-up, as chunkguard's init does */
    capture_everywhere();
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(fd_reuse_child(dir));
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    char path[600], note[2048] = "";
    snprintf(path, sizeof path, "%s/note", dir);
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        ssize_t r = read(fd, note, sizeof note - 1);
        note[r > 0 ? r : 0] = 0;
        close(fd);
    }
    for (int i = 0; i < STK_NFILES; i++) {
        snprintf(path, sizeof path, "%s/f%d", dir, i);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/note", dir);
    unlink(path);
    rmdir(dir);
    cr_assert(WIFEXITED(st), "child died (status 0x%x)", st);
    cr_assert_eq(WEXITSTATUS(st), 0, "child status %d: %s", WEXITSTATUS(st), note);
}

/* ---- malloc ------------------------------------------------------------- */

#if STK_HAVE_SHIM
static void *counted_thread(void *arg)
{
    (void)arg;
    stk_shim_count(true);
    uintptr_t pcs[16];
    stk_alpha(pcs, 16);
    capture_everywhere();
    unsigned long calls = stk_shim_calls();
    stk_shim_count(false);
    return (void *)calls;
}

Test(capture, no_malloc_after_priming)
{
    /* The counter works: this thread's strdup and free are seen. */
    stk_shim_count(true);
    free(strdup("seen"));
    cr_assert_geq(stk_shim_calls(), 2, "the counting malloc is not in use");
    stk_shim_count(false);

    cg_stack_prime();
    stk_shim_count(true);
    uintptr_t pcs[CG_STACK_MAX];
    size_t frames = stk_alpha(pcs, CG_STACK_MAX);
    frames += capture_everywhere();
    unsigned long calls = stk_shim_calls();
    stk_shim_count(false);
    cr_assert_gt(frames, 100);
    cr_assert_eq(calls, 0, "%lu malloc-family calls during captures", calls);

    pthread_t t;
    void *r;
    cr_assert_eq(pthread_create(&t, NULL, counted_thread, NULL), 0);
    pthread_join(t, &r);
    /* At most one: libunwind is loaded with dlopen, so glibc allocates its
     * thread-local block (its per-thread frame cache pointer) with malloc
     * at the thread's first capture; that nested malloc captures frame 0
     * only (the capture is re-entered), so it cannot recurse. */
    cr_assert_leq((unsigned long)r, 1, "%lu malloc-family calls in a new thread's captures",
                  (unsigned long)r);

    /* The depot and the symbolizer do not call malloc either. */
    char text[8192];
    stk_shim_count(true);
    size_t n = stk_alpha(pcs, CG_STACK_MAX);
    uint32_t id = cg_stack_put(pcs, n);
    const uintptr_t *got;
    size_t m = cg_stack_get(id, &got);
    cg_format_stack(text, sizeof text, got, m, false);
    cg_symbolize(pcs[0], text, sizeof text);
    calls = stk_shim_calls();
    stk_shim_count(false);
    cr_assert_neq(id, 0);
    cr_assert_eq(m, n);
    cr_assert_eq(calls, 0, "%lu malloc-family calls in the depot or the symbolizer", calls);
}

/* ---- the loader lock -------------------------------------------------- */

static int phdr_malloc_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    (void)data;
    free(malloc(24));            /* capture while holding the loader lock */
    return 0;
}

static void *dlopen_loop(void *arg)
{
    (void)arg;
    for (int i = 0; i < 150; i++) {
        void *h = dlopen(STK_FIXTURE_DIR "/libstk_fixture.so", RTLD_NOW | RTLD_LOCAL);
        if (h == NULL)
            return (void *)1;
        int (*g)(int) = (int (*)(int))dlsym(h, "stk_fixture_global");
        if (g == NULL || g(1) != 6)
            return (void *)2;
        dlclose(h);
    }
    return NULL;
}

static void *short_thread(void *arg)
{
    int k = (int)(intptr_t)arg;
    stk_sites[k % 32](k);                      /* misses in a fresh frame cache */
    dl_iterate_phdr(phdr_malloc_cb, NULL);
    free(malloc(100));
    return NULL;
}

#ifndef STK_SPAWNS
#define STK_SPAWNS 150
#endif
static void *spawner(void *arg)
{
    (void)arg;
    for (int i = 0; i < STK_SPAWNS; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_thread, (void *)(intptr_t)i) != 0)
            return (void *)1;
        pthread_join(t, NULL);
    }
    return NULL;
}

static void *iterate_loop(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1500; i++)
        dl_iterate_phdr(phdr_malloc_cb, NULL);
    return NULL;
}

Test(capture, capturing_malloc_under_the_loader_lock_does_not_deadlock)
{
    /* A hang is a failure: SIGALRM kills the test process. */
    alarm(40);
    cg_stack_prime();
    __atomic_store_n(&stk_shim_capture, 1, __ATOMIC_RELAXED);
    void *(*fns[7])(void *) = {dlopen_loop, dlopen_loop, spawner, spawner, spawner, spawner,
                               iterate_loop};
    pthread_t t[7];
    for (int i = 0; i < 7; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, fns[i], NULL), 0);
    for (int i = 0; i < 7; i++) {
        void *r;
        pthread_join(t[i], &r);
        cr_assert_null(r, "thread %d failed (%p)", i, r);
    }
    __atomic_store_n(&stk_shim_capture, 0, __ATOMIC_RELAXED);
    cg_stackdepot_stats_t st;
    cg_stackdepot_stats(&st);
    cr_assert_gt(st.stacks, 10, "the malloc hook did not capture (%zu stacks)", st.stacks);
    alarm(0);
}
#endif /* STK_HAVE_SHIM */

/* The deterministic form of the deadlock that UNW_CACHE_GLOBAL allows:
 * thread B holds the loader's write lock (inside dl_iterate_phdr) and then
 * captures; thread A captures at the same time, through a frame that has
 * no unwind information, so libunwind calls dl_iterate_phdr for it.  Under
 * the global cache A holds libunwind's cache mutex while it waits for the
 * loader lock, and B then waits for that mutex: both hang.  With
 * UNW_CACHE_NONE, A just waits for B to finish. */
static int lock_phase;          /* 0 start, 1 B holds the lock, 2 A is capturing */

static bool wait_phase(int want, int ms)
{
    for (int i = 0; i < ms; i++) {
        if (__atomic_load_n(&lock_phase, __ATOMIC_ACQUIRE) >= want)
            return true;
        usleep(1000);
    }
    return false;
}

static int holder_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    if (__atomic_load_n(&lock_phase, __ATOMIC_ACQUIRE) == 0) {
        __atomic_store_n(&lock_phase, 1, __ATOMIC_RELEASE);
        if (wait_phase(2, 5000))
            usleep(100 * 1000);          /* let A reach the loader lock */
        uintptr_t pcs[CG_STACK_MAX];
        *(size_t *)data = capture_into(pcs);
    }
    return 0;
}

static void *lock_holder(void *arg)
{
    (void)arg;
    size_t frames = 0;
    dl_iterate_phdr(holder_cb, &frames);
    return (void *)frames;
}

static void *lock_waiter(void *arg)
{
    (void)arg;
    uintptr_t pcs[CG_STACK_MAX];
    if (!wait_phase(1, 5000))
        return NULL;
    __atomic_store_n(&lock_phase, 2, __ATOMIC_RELEASE);
    return (void *)stk_nocfi_call(capture_into, pcs);
}

Test(capture, loader_lock_holder_and_waiter_both_finish)
{
    alarm(10);                    /* a deadlock is a failure, not a hang */
    cg_stack_prime();
    uintptr_t pcs[CG_STACK_MAX];
    stk_nocfi_call(capture_into, pcs);      /* warm: the frames with CFI are known */
    pthread_t a, b;
    cr_assert_eq(pthread_create(&b, NULL, lock_holder, NULL), 0);
    cr_assert_eq(pthread_create(&a, NULL, lock_waiter, NULL), 0);
    void *ra, *rb;
    pthread_join(b, &rb);
    pthread_join(a, &ra);
    alarm(0);
    cr_assert_geq((size_t)rb, 3, "the lock holder's capture gave %zu frames", (size_t)rb);
    cr_assert_geq((size_t)ra, 3, "the waiter's capture gave %zu frames", (size_t)ra);
}

