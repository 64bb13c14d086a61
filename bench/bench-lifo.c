/*
 * bench-lifo.c — batches of small blocks allocated, then freed in reverse
 * order (the shape of glibc's bench-malloc-simple).
 *
 * usage: bench-lifo {fixed|random} ITERS
 *   One iteration is one batch.  Batches cycle through 25, 100, 400 and 1000
 *   blocks, so a batch fits the tcache (7 per size), spills into fastbins or
 *   the small bins, or walks the top chunk.
 *   fixed:  every block of a batch has the same size; successive batches
 *           cycle through 16, 24, 48, 64, 100, 128, 256 and 1000 bytes (a size
 *           a program asks for over and over, e.g. one struct type).
 *   random: every block has its own size, uniform in 1..1024 bytes, from a
 *           table filled before timing (so the generator is not timed).
 * Each block gets one byte written and read back before its free: the check
 * value sums those bytes, so it is the same under every allocator.
 * Output and exit status: see bench.h.
 */
#include "bench.h"

#define MAX_BATCH 1000
#define RAND_TABLE 8192 /* power of two: index by mask */

static const unsigned batch_counts[4] = { 25, 100, 400, 1000 };
static const unsigned fixed_sizes[8] = { 16, 24, 48, 64, 100, 128, 256, 1000 };

typedef struct lifo_state {
    int random;                 /* 1: per-block sizes from table          */
    uint32_t *table;            /* RAND_TABLE random sizes                 */
    uint32_t next;              /* next table index (wraps by mask)       */
    unsigned char *blocks[MAX_BATCH]; /* the live batch                    */
    uint64_t ops;               /* allocator calls made                   */
    uint64_t check;             /* sum of bytes read back                 */
} lifo_state_t;

/* One batch: allocate n blocks, then free them last-first.  @i numbers the
 * batch and picks its block count and (fixed variant) its size. */
BENCH_BODY void lifo_batch(lifo_state_t *st, unsigned long i)
{
    unsigned n = batch_counts[i & 3];
    size_t fixed = fixed_sizes[(i >> 2) & 7];
    for (unsigned k = 0; k < n; k++) {
        size_t sz = st->random ? st->table[st->next++ & (RAND_TABLE - 1)] : fixed;
        unsigned char *p = malloc(sz);
        if (!p) bench_die("malloc failed");
        p[0] = (unsigned char)k;
        BENCH_ESCAPE(p);
        st->blocks[k] = p;
    }
    for (unsigned k = n; k-- > 0;) {
        st->check += st->blocks[k][0];
        free(st->blocks[k]);
    }
    st->ops += 2ull * n;
}

BENCH_WRAPPER void warmup_lifo(lifo_state_t *st, unsigned long iters)
{
    for (unsigned long i = 0; i < iters; i++) lifo_batch(st, i);
}

BENCH_WRAPPER void timed_lifo(lifo_state_t *st, unsigned long iters)
{
    for (unsigned long i = 0; i < iters; i++) lifo_batch(st, i);
}

int main(int argc, char **argv)
{
    static lifo_state_t st;
    unsigned long iters;
    if (argc != 3 || !(iters = bench_parse_iters(argv[2]))) bench_usage(argv[0], "fixed|random");
    if (!strcmp(argv[1], "fixed")) st.random = 0;
    else if (!strcmp(argv[1], "random")) st.random = 1;
    else bench_usage(argv[0], "fixed|random");

    bench_rng_t rng = { 0x9E3779B97F4A7C15ull };
    st.table = bench_xmalloc(RAND_TABLE * sizeof *st.table);
    for (unsigned k = 0; k < RAND_TABLE; k++) st.table[k] = 1 + bench_rng_below(&rng, 1024);

    /* Warm-up: one full cycle of block counts and sizes (32 batches), so the
     * timed loop starts with the heap grown and the pages touched. */
    warmup_lifo(&st, 32);
    st.ops = 0;
    st.next = 0;

    bench_time_t t0 = bench_now();
    timed_lifo(&st, iters);
    bench_time_t t1 = bench_now();

    bench_report(st.random ? "lifo-random" : "lifo-fixed", st.ops, 1, t0, t1, st.check);
    free(st.table);
    return 0;
}
