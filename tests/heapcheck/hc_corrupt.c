/*
 * hc_corrupt.c — one test per kind of inconsistency cg_verify_heap() names
 * (the CG_VERIFY_ENTRY lines of src/report/checks.def): each case builds a small heap, writes one field
 * through the chunk.h / arena.h helpers (the test hook: this program links
 * the cg_-named core statically, so it sees chunkguard's internals), and
 * asserts that the verifier names that kind — and, run again with that
 * kind's check turned off (the test build's cg_heapcheck_off_mask), that
 * the same test fails.  Plus a robustness run: random words written over
 * headers, links and the arena's fields, after which the verifier must
 * return (no fault, no hang).
 *
 *   hc_corrupt                 every case, each in a child process (exec'd
 *                              with its own CHUNKGUARD_OPTIONS and
 *                              GLIBC_TUNABLES); prints PASS/FAIL lines
 *   hc_corrupt --case NAME     one case in this process (HC_OFF=<kind index>
 *                              turns that kind off); exit 0 iff it is named
 *   hc_corrupt --fuzz N SEED   N random corruptions, each in a child
 */
#define CHUNKGUARD_PREFIXED 1
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunkguard.h"
#include "arena.h"
#include "debug.h"
#include "heapcheck.h"
#include "shadow.h"
#include "tcache.h"

extern uint64_t cg_heapcheck_off_mask;

/* Over a thousand reports a run, none read for file:line: a symbolizer
 * run for each (report/symbolize.c) would take the suite from about a
 * minute to twenty.  Each case's CHUNKGUARD_OPTIONS comes after this. */
const char *cg_default_options(void)
{
    return "symbolize=0";
}

static cg_arena_t *const av = &cg_main_arena;
static cg_chunk_t *chunk(void *p) { return cg_mem2chunk(p); }

static void setup_fail(const char *why)
{
    printf("setup failed: %s\n", why);
    exit(2);
}

/* ---- the cases --------------------------------------------------------- */

static void c_size(void)
{
    void *a = cg_malloc(200);
    cg_malloc(200);
    cg_set_head(chunk(a), (cg_csize(chunk(a)) + 8) | CG_PREV_INUSE);
}

static void c_startmap(void)
{
    cg_malloc(200);
    void *b = cg_malloc(200);
    cg_malloc(200);
    cg_start_clear(chunk(b));
}

/* A 2000-byte block freed into the unsorted bin (tcache_count=0). */
static void *freed_unsorted(void)
{
    void *a = cg_malloc(2000);
    cg_malloc(100);
    cg_free(a);
    if (av->bins[0] != chunk(a))
        setup_fail("the freed block is not at the front of the unsorted bin");
    return a;
}

static void c_prev_inuse(void)
{
    void *a = freed_unsorted();
    cg_chunk_t *n = cg_next(chunk(a));
    cg_set_head(n, cg_head(n) | CG_PREV_INUSE);
}

static void c_adj_free(void)
{
    void *a = cg_malloc(2000), *b = cg_malloc(2000), *c = cg_malloc(2000);
    cg_malloc(100);
    cg_free(a);
    cg_free(c);
    /* b now looks free too, next to free a */
    cg_set_head(chunk(c), cg_head(chunk(c)) & ~CG_PREV_INUSE);
    chunk(c)->prev_size = cg_csize(chunk(b));
}

static void c_free_top(void)
{
    void *a = cg_malloc(2000);
    if (cg_next(chunk(a)) != av->top)
        setup_fail("the block is not next to the top chunk");
    cg_set_head(av->top, cg_head(av->top) & ~CG_PREV_INUSE);
    av->top->prev_size = cg_csize(chunk(a));
}

static void c_not_binned(void)
{
    freed_unsorted();
    cg_chunk_t *ub = cg_bin_at(av, CG_UNSORTED);
    ub->fd = ub->bk = ub;
}

static void c_multi(void)
{
    void *x = cg_malloc(24);
    cg_free(x);                          /* the only entry of tcache bin 0 */
    av->fastbins[0] = chunk(x);          /* its next link reads NULL there too */
}

static void c_bin_link(void)
{
    void *a = freed_unsorted();
    chunk(a)->fd = (cg_chunk_t *)0x4141414141414140;
}

static void c_bk(void)
{
    void *a = cg_malloc(2000);
    cg_malloc(100);
    void *b = cg_malloc(2000);
    cg_malloc(100);
    cg_free(a);
    cg_free(b);                          /* unsorted: b, a */
    chunk(a)->bk = chunk(a);
}

/* Rebuild bin i as exactly the chunks given, in order. */
static void set_bin(size_t i, cg_chunk_t **c, size_t n)
{
    cg_chunk_t *b = cg_bin_at(av, i), *prev = b;
    for (size_t k = 0; k < n; k++) {
        prev->fd = c[k];
        c[k]->bk = prev;
        prev = c[k];
    }
    prev->fd = b;
    b->bk = prev;
    av->binmap[i >> 5] |= 1u << (i & 31);
}

static void c_bin_class(void)
{
    void *a = freed_unsorted();
    cg_chunk_t *ca = chunk(a);
    set_bin(CG_UNSORTED, NULL, 0);
    set_bin(10, &ca, 1);                 /* small bin 10 holds 160-byte chunks */
}

/* Two chunks of large bin 64 (1024 and 1056 bytes), sorted into it. */
static void large_pair(cg_chunk_t **small, cg_chunk_t **large)
{
    void *a = cg_malloc(1016);
    cg_malloc(100);
    void *b = cg_malloc(1048);
    cg_malloc(100);
    cg_free(a);
    cg_free(b);
    cg_malloc(8000);                     /* sorts the unsorted bin */
    *small = chunk(a);
    *large = chunk(b);
    cg_chunk_t *bin = cg_bin_at(av, 64);
    if (bin->fd != *large || bin->bk != *small)
        setup_fail("large bin 64 does not hold the two chunks, largest first");
}

static void c_bin_order(void)
{
    cg_chunk_t *c[2];
    large_pair(&c[0], &c[1]);            /* smallest first: out of order */
    set_bin(64, c, 2);
}

static void c_binmap(void)
{
    cg_chunk_t *s, *l;
    large_pair(&s, &l);
    av->binmap[64 >> 5] &= ~(1u << (64 & 31));
}

/* A 32-byte chunk in fastbin 0 (tcache_count=0). */
static void *freed_fast(void)
{
    void *x = cg_malloc(24);
    cg_malloc(24);
    cg_free(x);
    if (av->fastbins[0] != chunk(x))
        setup_fail("the freed block is not in fastbin 0");
    return x;
}

static void c_fast_link(void)
{
    chunk(freed_fast())->fd = (cg_chunk_t *)0x4141414141414140;
}

static void c_fast_class(void)
{
    freed_fast();
    av->fastbins[3] = av->fastbins[0];
    av->fastbins[0] = NULL;
}

static void c_cycle(void)
{
    void *x = freed_fast(), *y = cg_malloc(24);
    cg_malloc(24);
    cg_free(y);                          /* fastbin 0: y, x */
    chunk(x)->fd = cg_protect(&chunk(x)->fd, chunk(y));
}

static void *freed_tcache(void)
{
    void *x = cg_malloc(24);
    cg_malloc(24);
    cg_free(x);
    if (cg_self.tcache == NULL || cg_self.tcache->entries[0] != x)
        setup_fail("the freed block is not in tcache bin 0");
    return x;
}

static void c_tc_link(void)
{
    *(void **)freed_tcache() = (void *)0x4141414141414140;
}

static void c_tc_class(void)
{
    freed_tcache();
    cg_tcache_t *tc = cg_self.tcache;
    tc->entries[5] = tc->entries[0];
    tc->counts[5] = 1;
    tc->entries[0] = NULL;
    tc->counts[0] = 0;
}

static void c_tc_count(void)
{
    freed_tcache();
    cg_self.tcache->counts[0] = 2;
}

static void c_tc_key(void)
{
    ((uintptr_t *)freed_tcache())[1] = 0;
}

static void c_top(void)
{
    cg_malloc(100);
    cg_set_head_size(av->top, cg_csize(av->top) - 4096);
}

static void c_fence(void)
{
    for (int i = 0; i < 2000 && av->heap->prev == NULL; i++)
        cg_malloc(100 * 1024);
    if (av->heap->prev == NULL || av->heap->prev->fence == NULL)
        setup_fail("no second heap");
    cg_chunk_t *f = av->heap->prev->fence;
    cg_set_head(cg_next(f), 0);          /* the end marker loses PREV_INUSE */
}

static void c_heap(void)
{
    cg_malloc(100);
    av->heap->prev = (cg_heap_t *)((uintptr_t)1 << 40);
}

/* A wrong chunk_slots would let the inline tcache pop take a link into the
 * heap's inaccessible part. */
static void c_heap_slots(void)
{
    cg_malloc(100);
    av->heap->chunk_slots += 4096;
}

static void c_big(void)
{
    void *p = cg_malloc(1 << 20);
    cg_set_head(chunk(p), cg_head(chunk(p)) + 4096);
}

/* Debug mode: the block's chunk starts 16 bytes (the leading redzone)
 * before the header's end. */
static cg_chunk_t *debug_chunk(void *p) { return cg_mem2chunk((char *)p - CG_DBG_LEAD); }

static void c_redzone(void)
{
    char *p = cg_malloc(40);
    p[40] = 1;
}

static void c_poison(void)
{
    char *p = cg_malloc(40);
    cg_free(p);
    p[3] = 1;
}

static void c_shadow(void)
{
    void *p = cg_malloc(40);
    cg_shadow_t *r = cg_shadow_of(debug_chunk(p), false, NULL);
    if (r == NULL)
        setup_fail("no shadow record");
    r->head ^= 0x100;
}

static void c_no_record(void)
{
    void *p = cg_malloc(40);
    cg_chunk_t *c = debug_chunk(p);
    cg_heap_t *h = cg_heap_base(c);
    uint32_t *map = (uint32_t *)((char *)h + CG_SHADOW_MAP_OFF);
    map[((uintptr_t)c - (uintptr_t)h) >> 6] = 0;
}

#define TC0 "glibc.malloc.tcache_count=0"
/* guard_sample=0: the cases find a block's chunk, header and shadow entry
 * from its address in a heap, which a block sampled to a guard slot is not in */
#define DBG "mode=debug:stack_depth=1:guard_sample=0"

typedef struct hcase {
    const char *name;
    int kind;
    const char *opts, *tunables;
    void (*make)(void);
} hcase_t;

static const hcase_t cases[] = {
    { "size", HC_SIZE, "", "", c_size },
    { "startmap", HC_STARTMAP, "", "", c_startmap },
    { "prev-inuse", HC_PREV_INUSE, "", TC0, c_prev_inuse },
    { "adj-free", HC_ADJ_FREE, "", TC0, c_adj_free },
    { "free-top", HC_FREE_TOP, "", TC0, c_free_top },
    { "not-binned", HC_NOT_BINNED, "", TC0, c_not_binned },
    { "multi", HC_MULTI, "", "", c_multi },
    { "bin-link", HC_BIN_LINK, "", TC0, c_bin_link },
    { "bk", HC_BK, "", TC0, c_bk },
    { "bin-class", HC_BIN_CLASS, "", TC0, c_bin_class },
    { "bin-order", HC_BIN_ORDER, "", TC0, c_bin_order },
    { "binmap", HC_BINMAP, "", TC0, c_binmap },
    { "fast-link", HC_FAST_LINK, "", TC0, c_fast_link },
    { "fast-class", HC_FAST_CLASS, "", TC0, c_fast_class },
    { "cycle", HC_CYCLE, "", TC0, c_cycle },
    { "tc-link", HC_TC_LINK, "", "", c_tc_link },
    { "tc-class", HC_TC_CLASS, "", "", c_tc_class },
    { "tc-count", HC_TC_COUNT, "", "", c_tc_count },
    { "tc-key", HC_TC_KEY, "", "", c_tc_key },
    { "top", HC_TOP, "", "", c_top },
    { "fence", HC_FENCE, "", "", c_fence },
    { "heap", HC_HEAP, "", "", c_heap },
    { "heap-slots", HC_HEAP, "", "", c_heap_slots },
    { "big", HC_BIG, "", "", c_big },
    { "redzone", HC_REDZONE, DBG, "", c_redzone },
    { "poison", HC_POISON, DBG, "", c_poison },
    { "shadow", HC_SHADOW, DBG, "", c_shadow },
    { "no-record", HC_NO_RECORD, DBG, "", c_no_record },
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ---- running one case -------------------------------------------------- */

static int named[HC_KIND_COUNT];
static size_t callbacks;

/* Which kinds a report names: its detail line "heap check: <kind>: ...". */
static void on_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    callbacks++;
    for (int k = 0; k < HC_KIND_COUNT; k++) {
        char want[128];
        snprintf(want, sizeof want, "heap check: %s: ", cg_heapcheck_kind_name(k));
        if (strstr(r->text, want) != NULL)
            named[k]++;
    }
}

static int run_case(const char *name)
{
    const hcase_t *c = NULL;
    for (size_t i = 0; i < NCASES; i++)
        if (strcmp(cases[i].name, name) == 0)
            c = &cases[i];
    if (c == NULL)
        setup_fail("no such case");
    const char *off = getenv("HC_OFF");
    if (off != NULL)
        cg_heapcheck_off_mask = (uint64_t)1 << atoi(off);
    alarm(30);
    c->make();
    cg_set_report_callback(on_report, NULL);
    size_t n = cg_verify_heap();
    printf("cg_verify_heap() = %zu, %zu reports; named:", n, callbacks);
    for (int k = 0; k < HC_KIND_COUNT; k++)
        if (named[k])
            printf(" \"%s\"", cg_heapcheck_kind_name(k));
    printf("\n");
    return named[c->kind] && n == callbacks ? 0 : 1;
}

/* Run this program on one case in a child with the case's environment;
 * returns its exit status (or 128 + signal), its output in out. */
static int spawn_case(const hcase_t *c, int off_kind, char *out, size_t cap)
{
    int pfd[2];
    if (pipe(pfd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        close(pfd[0]);
        setenv("CHUNKGUARD_OPTIONS", c->opts, 1);
        setenv("GLIBC_TUNABLES", c->tunables, 1);
        if (off_kind >= 0) {
            char k[16];
            snprintf(k, sizeof k, "%d", off_kind);
            setenv("HC_OFF", k, 1);
        } else {
            unsetenv("HC_OFF");
        }
        execl("/proc/self/exe", "hc_corrupt", "--case", c->name, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    size_t n = 0;
    ssize_t r;
    while ((r = read(pfd[0], out + n, cap - 1 - n)) > 0 && n + 1 < cap)
        n += (size_t)r;
    out[n] = 0;
    close(pfd[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The last line of a child's output that says what was named. */
static const char *summary(const char *out)
{
    const char *s = strstr(out, "cg_verify_heap() = ");
    if (s == NULL)
        s = strstr(out, "setup failed");
    return s ? s : "(no output)";
}

static int run_all(void)
{
    static char out[1 << 16];
    int failed = 0;
    int covered[HC_KIND_COUNT] = { 0 };
    for (size_t i = 0; i < NCASES; i++) {
        const hcase_t *c = &cases[i];
        covered[c->kind] = 1;
        int on = spawn_case(c, -1, out, sizeof out);
        if (on != 0) {
            printf("FAIL heapcheck/%s: the verifier did not name \"%s\" (status %d): %.300s\n",
                   c->name, cg_heapcheck_kind_name(c->kind), on, summary(out));
            failed++;
            continue;
        }
        int off = spawn_case(c, c->kind, out, sizeof out);
        if (off != 1) {
            printf("FAIL heapcheck/%s: with the \"%s\" check off the test did not fail "
                   "as it should (status %d): %.300s\n", c->name,
                   cg_heapcheck_kind_name(c->kind), off, summary(out));
            failed++;
            continue;
        }
        printf("PASS heapcheck/%s: names \"%s\"; fails with that check off\n", c->name,
               cg_heapcheck_kind_name(c->kind));
    }
    for (int k = 0; k < HC_KIND_COUNT; k++)
        if (!covered[k]) {
            printf("FAIL heapcheck/uncovered: no case for \"%s\"\n", cg_heapcheck_kind_name(k));
            failed++;
        }
    return failed ? 1 : 0;
}

/* ---- robustness: random corruption ------------------------------------- */

static uint64_t rs;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

/* A value an attacker or a stray write might leave: garbage, small
 * numbers, sizes with flags, pointers near real chunks, mangled links. */
static uintptr_t bad_value(void *near)
{
    switch (rnd() % 6) {
    case 0: return (uintptr_t)rnd();
    case 1: return rnd() % 4096;
    case 2: return (uintptr_t)near + (rnd() % 512) * 8 - 2048;
    case 3: return (uintptr_t)cg_protect(near, (char *)near + (rnd() % 64) * 16);
    case 4: return (uintptr_t)near & ~(uintptr_t)(CG_HEAP_MAX - 1);
    default: return 0;
    }
}

static void fuzz_one(void)
{
    void *slot[512] = { 0 };
    for (int i = 0; i < 4000; i++) {
        size_t k = rnd() % 512;
        cg_free(slot[k]);
        slot[k] = rnd() % 3 ? cg_malloc(rnd() % (rnd() % 4 ? 1200 : 300000)) : NULL;
    }
    int writes = 1 + (int)(rnd() % 4);
    for (int w = 0; w < writes; w++) {
        void *p = slot[rnd() % 512];
        if (p == NULL)
            continue;
        uintptr_t *target;
        switch (rnd() % 4) {
        case 0:                          /* a chunk header or link */
            target = (uintptr_t *)((char *)p - 16 + (rnd() % 6) * 8);
            break;
        case 1:                          /* a word near it */
            target = (uintptr_t *)((char *)p + (rnd() % 64) * 8);
            if (!cg_in_heap(target))
                continue;
            break;
        case 2:                          /* the arena's lists and top */
            target = (uintptr_t *)&av->fastbins[0] + rnd() % (CG_NFASTBINS + 2 + 2 * CG_NBINS - 2);
            break;
        default:                         /* the thread's tcache */
            if (cg_self.tcache == NULL)
                continue;
            target = (uintptr_t *)cg_self.tcache->entries + rnd() % CG_TCACHE_BINS;
            break;
        }
        *target = bad_value(p);
    }
    cg_set_report_callback(on_report, NULL);
    cg_verify_heap();
}

static int run_fuzz(int iterations, uint64_t seed)
{
    int crashed = 0, found = 0;
    for (int i = 0; i < iterations; i++) {
        rs = seed * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull + 1;
        pid_t pid = fork();
        if (pid == 0) {
            alarm(20);
            int devnull = open("/dev/null", 1);
            dup2(devnull, 2);
            fuzz_one();
            _exit(callbacks > 0 ? 10 : 0);
        }
        int st;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st)) {
            printf("iteration %d (seed %llu): the verifier died with signal %d\n", i,
                   (unsigned long long)seed, WTERMSIG(st));
            crashed++;
        } else if (WEXITSTATUS(st) == 10) {
            found++;
        }
    }
    if (crashed)
        printf("FAIL heapcheck/random-corruption: %d of %d runs died\n", crashed, iterations);
    else
        printf("PASS heapcheck/random-corruption: %d runs returned (%d with reports)\n",
               iterations, found);
    return crashed ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 3 && strcmp(argv[1], "--case") == 0)
        return run_case(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "--fuzz") == 0)
        return run_fuzz(atoi(argv[2]), argc > 3 ? strtoull(argv[3], NULL, 10) : 1);
    return run_all();
}
