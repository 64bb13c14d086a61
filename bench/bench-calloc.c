/*
 * bench-calloc.c — calloc churn over a working set, fixed and random sizes.
 *
 * usage: bench-calloc {fixed|random|small-fixed|small-random} ITERS
 *   WSET slots; one iteration frees the block in a random slot and callocs a
 *   new one.  The new block's first, middle and last bytes must read zero
 *   (else exit 1: the allocator is wrong, and its time would mean nothing);
 *   they are then written, so a block that is freed and handed out again is
 *   dirty and must really be cleared.
 *   fixed:  runs of 4096 calls of one size, cycling through 24, 64, 200, 512,
 *           1024 and 4000 bytes (a program that callocs one struct type).
 *   random: every call its own size, uniform in 1..4096 bytes.
 *   small-fixed / small-random: the same shapes over the sizes where a
 *           clearing strategy differs most (24..120 bytes; 1..128 bytes),
 *           to measure how small blocks are cleared.
 *   glibc's reviewers warned that random sizes alone tune an allocator to the
 *   benchmark: a clearing strategy good for one may be bad for the other.
 * Output and exit status: see bench.h.
 */
#include "bench.h"

#define WSET 1024           /* live blocks                                   */
#define TABLE 65536         /* precomputed (slot, size) pairs, power of two  */
#define RUN 4096            /* calls per fixed size                          */

static const uint32_t fixed_sizes[6] = { 24, 64, 200, 512, 1024, 4000 };
static const uint32_t small_sizes[6] = { 24, 40, 56, 72, 100, 120 };

typedef struct calloc_state {
    int random;                 /* 1: sizes from size_of[]                 */
    const uint32_t *sizes;      /* the six sizes of the fixed shapes       */
    uint32_t *slot_of;          /* TABLE random slot indexes              */
    uint32_t *size_of;          /* TABLE random sizes                     */
    unsigned char *live[WSET];  /* current blocks, NULL when empty        */
    uint64_t ops;               /* allocator calls made                   */
    uint64_t check;             /* sum of first bytes read before free    */
} calloc_state_t;

BENCH_BODY void calloc_step(calloc_state_t *st, unsigned long i)
{
    uint32_t j = st->slot_of[i & (TABLE - 1)];
    uint32_t sz = st->random ? st->size_of[i & (TABLE - 1)] : st->sizes[(i / RUN) % 6];
    unsigned char *old = st->live[j];
    if (old) {
        st->check += old[0];
        free(old);
        st->ops++;
    }
    unsigned char *p = calloc(1, sz);
    if (!p) bench_die("calloc failed");
    st->ops++;
    if (p[0] | p[sz / 2] | p[sz - 1]) bench_die("calloc returned a block that is not zeroed");
    p[0] = (unsigned char)(i | 1);
    p[sz / 2] = 0xa5;
    p[sz - 1] = 0x5a;
    BENCH_ESCAPE(p);
    st->live[j] = p;
}

BENCH_WRAPPER void warmup_calloc(calloc_state_t *st, unsigned long iters)
{
    for (unsigned long i = 0; i < iters; i++) calloc_step(st, i);
}

BENCH_WRAPPER void timed_calloc(calloc_state_t *st, unsigned long first, unsigned long iters)
{
    for (unsigned long i = first; i < first + iters; i++) calloc_step(st, i);
}

int main(int argc, char **argv)
{
    static calloc_state_t st;
    unsigned long iters;
    const char *modes = "fixed|random|small-fixed|small-random";
    if (argc != 3 || !(iters = bench_parse_iters(argv[2]))) bench_usage(argv[0], modes);
    int small = !strncmp(argv[1], "small-", 6);
    const char *shape = argv[1] + (small ? 6 : 0);
    if (!strcmp(shape, "fixed")) st.random = 0;
    else if (!strcmp(shape, "random")) st.random = 1;
    else bench_usage(argv[0], modes);
    st.sizes = small ? small_sizes : fixed_sizes;
    uint32_t max_size = small ? 128 : 4096;

    bench_rng_t rng = { 0x13198A2E03707344ull };
    st.slot_of = bench_xmalloc(TABLE * sizeof *st.slot_of);
    st.size_of = bench_xmalloc(TABLE * sizeof *st.size_of);
    for (unsigned k = 0; k < TABLE; k++) {
        st.slot_of[k] = bench_rng_below(&rng, WSET);
        st.size_of[k] = 1 + bench_rng_below(&rng, max_size);
    }

    /* Warm-up: one pass over every fixed size, filling all slots. */
    unsigned long warm = 6ul * RUN;
    warmup_calloc(&st, warm);
    st.ops = 0;

    bench_time_t t0 = bench_now();
    timed_calloc(&st, warm, iters);
    bench_time_t t1 = bench_now();

    char name[32];
    snprintf(name, sizeof name, "calloc-%s", argv[1]);
    bench_report(name, st.ops, 1, t0, t1, st.check);
    for (unsigned k = 0; k < WSET; k++) free(st.live[k]);
    free(st.slot_of);
    free(st.size_of);
    return 0;
}
