/*
 * bench-realloc.c — buffers grown by realloc, as string builders and
 * dynamic arrays grow them.
 *
 * usage: bench-realloc {grow} ITERS
 *   NBUF buffers are grown in turn (round robin), so a buffer's neighbour is
 *   often another live buffer and realloc cannot always extend in place.
 *   One iteration appends 1..64 bytes to one buffer: realloc to the new
 *   length, then write the appended bytes' first and last positions.  When a
 *   buffer reaches its target length (random, 256 bytes..64 KiB) it is freed
 *   and starts again empty (realloc(NULL, n) is its first allocation).
 *   Operations are realloc and free calls.
 * Output and exit status: see bench.h.
 */
#include "bench.h"

#define NBUF 8              /* buffers grown round robin                     */
#define TABLE 65536         /* precomputed step and target sizes             */

typedef struct buf {
    unsigned char *p;           /* the buffer, NULL before its first append */
    uint32_t len;               /* bytes in use                            */
    uint32_t target;            /* length at which it is freed             */
} buf_t;

typedef struct realloc_state {
    uint32_t *step;             /* TABLE append lengths, 1..64             */
    uint32_t *target;           /* TABLE target lengths, 256..65536        */
    uint32_t next_target;       /* index into target[]                     */
    buf_t buf[NBUF];            /* the buffers                             */
    uint64_t ops;               /* allocator calls made                    */
    uint64_t check;             /* sum of the bytes written at the ends    */
} realloc_state_t;

BENCH_BODY void realloc_step(realloc_state_t *st, unsigned long i)
{
    buf_t *b = &st->buf[i % NBUF];
    uint32_t add = st->step[i & (TABLE - 1)];
    uint32_t len = b->len + add;
    unsigned char *p = realloc(b->p, len);
    if (!p) bench_die("realloc failed");
    st->ops++;
    p[b->len] = (unsigned char)i;
    p[len - 1] = (unsigned char)add;
    BENCH_ESCAPE(p);
    b->p = p;
    b->len = len;
    if (len >= b->target) {
        /* contents must have survived every move */
        st->check += p[0] + p[len - 1];
        free(p);
        st->ops++;
        b->p = NULL;
        b->len = 0;
        b->target = st->target[st->next_target++ & (TABLE - 1)];
    }
}

BENCH_WRAPPER void warmup_realloc(realloc_state_t *st, unsigned long iters)
{
    for (unsigned long i = 0; i < iters; i++) realloc_step(st, i);
}

BENCH_WRAPPER void timed_realloc(realloc_state_t *st, unsigned long first, unsigned long iters)
{
    for (unsigned long i = first; i < first + iters; i++) realloc_step(st, i);
}

int main(int argc, char **argv)
{
    static realloc_state_t st;
    unsigned long iters;
    if (argc != 3 || !(iters = bench_parse_iters(argv[2])) || strcmp(argv[1], "grow"))
        bench_usage(argv[0], "grow");

    bench_rng_t rng = { 0xA4093822299F31D0ull };
    st.step = bench_xmalloc(TABLE * sizeof *st.step);
    st.target = bench_xmalloc(TABLE * sizeof *st.target);
    for (unsigned k = 0; k < TABLE; k++) {
        st.step[k] = 1 + bench_rng_below(&rng, 64);
        st.target[k] = 256 + bench_rng_below(&rng, 65536 - 256 + 1);
    }
    for (unsigned k = 0; k < NBUF; k++) st.buf[k].target = st.target[st.next_target++];

    /* Warm-up: long enough for every buffer to reach its target a few times. */
    unsigned long warm = 200000;
    warmup_realloc(&st, warm);
    st.ops = 0;

    bench_time_t t0 = bench_now();
    timed_realloc(&st, warm, iters);
    bench_time_t t1 = bench_now();

    bench_report("realloc-grow", st.ops, 1, t0, t1, st.check);
    for (unsigned k = 0; k < NBUF; k++) free(st.buf[k].p);
    free(st.step);
    free(st.target);
    return 0;
}
