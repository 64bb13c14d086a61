/*
 * case.h — helpers shared by the one-bug-per-file programs in tests/cases/.
 *
 * Every helper avoids stdio: printf would allocate the stdout buffer and
 * move the chunks a case is arranging into place, and a report must be the
 * first thing on stderr.
 */
#ifndef CG_CASE_H
#define CG_CASE_H

#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The tcache holds 7 entries per size class; the 8th free of a class goes
 * to a fastbin (for chunks up to 128 bytes) or to the unsorted bin. */
#define CASE_TCACHE_COUNT 7

/*
 * case_print_addr - tell the runner which address the report must name.
 * @p: the pointer the buggy call receives.
 * Writes "cg-expect-addr=0x<hex>\n" to stdout with write(2), so nothing is
 * allocated and the line is out before the process dies.
 */
static inline void case_print_addr(const void *p)
{
    char buf[64] = "cg-expect-addr=0x";
    size_t n = strlen(buf);
    uintptr_t v = (uintptr_t)p;
    int started = 0;
    for (int shift = 60; shift >= 0; shift -= 4) {
        unsigned d = (unsigned)(v >> shift) & 0xf;
        if (d || started || shift == 0) {
            buf[n++] = "0123456789abcdef"[d];
            started = 1;
        }
    }
    buf[n++] = '\n';
    (void)!write(1, buf, n);
}

#ifndef __cplusplus   /* a C++ case (tests/cases/<kind>_<variant>.cc) needs only the above */

/*
 * case_fill_tcache - make the tcache bin of one size class full.
 * @size: request size in bytes whose class is filled.
 * Allocates 7 blocks first and frees them after, so the 7 frees land in the
 * tcache (the blocks do not come from it).  The blocks stay cached; a later
 * case_drain_tcache(size) takes them back out.
 */
static inline void case_fill_tcache(size_t size)
{
    void *blocks[CASE_TCACHE_COUNT];
    for (int i = 0; i < CASE_TCACHE_COUNT; i++)
        blocks[i] = malloc(size);
    for (int i = 0; i < CASE_TCACHE_COUNT; i++)
        free(blocks[i]);
}

/*
 * case_drain_tcache - empty the tcache bin of one size class.
 * @size: request size in bytes.
 * The 7 blocks are leaked on purpose: freeing them would refill the bin.
 */
static inline void case_drain_tcache(size_t size)
{
    for (int i = 0; i < CASE_TCACHE_COUNT; i++) {
        volatile void *p = malloc(size);
        (void)p;
    }
}

/*
 * case_next_size_field - the size word of the chunk that follows block @p.
 * For a heap chunk the usable size ends exactly where the next chunk's size
 * word begins (usable = chunk size - 8), so this is where a one-word
 * overflow of @p lands.
 */
static inline size_t *case_next_size_field(void *p)
{
    return (size_t *)((char *)p + malloc_usable_size(p));
}

/*
 * The set-ups below arrange the heap state a case's bug needs; the case
 * then corrupts one field and makes the call that must catch it.  Every
 * helper makes its mallocs and frees in the order its comment gives, and
 * leaks the blocks a case never names (guards stay live on purpose).
 */

/* A request beyond the tcache (up to 1032 bytes) and the fastbins: its
 * free goes to the unsorted bin, or merges into the top chunk. */
#define CASE_BIG 2000

/* A request of the 32-byte chunk size class: a tcache and fastbin size. */
#define CASE_FAST 24

/* Three adjacent blocks, in address order. */
struct case_three {
    char *a;
    char *b;
    char *guard;    /* keeps a and b from the top chunk */
};

/*
 * case_three_live - three adjacent live CASE_BIG blocks a, b, guard.
 * Leaves all three in use; the guard keeps b (and a) from the top chunk.
 */
static inline struct case_three case_three_live(void)
{
    struct case_three t;
    t.a = malloc(CASE_BIG);
    t.b = malloc(CASE_BIG);
    t.guard = malloc(CASE_BIG);
    return t;
}

/*
 * case_unsorted_first - case_three_live, then free(a).
 * Leaves a alone in the unsorted bin (fd and bk point at the bin); b, live,
 * has PREV_INUSE clear and a's chunk size as its prev_size, so freeing b
 * coalesces backwards and unlinks a.
 */
static inline struct case_three case_unsorted_first(void)
{
    struct case_three t = case_three_live();
    free(t.a);
    return t;
}

/*
 * case_unsorted_middle - case_three_live, then free(b).
 * Leaves b alone in the unsorted bin between live a and guard: the guard
 * has PREV_INUSE clear and b's chunk size as its prev_size.  Freeing a
 * coalesces forwards into b; the next request no bin can serve sorts b.
 */
static inline struct case_three case_unsorted_middle(void)
{
    struct case_three t = case_three_live();
    free(t.b);
    return t;
}

/*
 * case_freed_in_bin - case_unsorted_first, then free(b).
 * b merges backwards into a, so the free chunk in the unsorted bin starts
 * at a and b lies inside it (b's stale header is still there).  The guard
 * stays live.  Returns b.
 */
static inline char *case_freed_in_bin(void)
{
    struct case_three t = case_unsorted_first();
    free(t.b);
    return t.b;
}

/*
 * case_freed_in_top - two adjacent CASE_BIG blocks a, b that are the last
 * before the top chunk; free(b), then free(a).
 * b merges into top, then a merges with top: the top chunk starts at a and
 * b lies inside it (b's stale header holds the old top's size).  Returns b.
 */
static inline char *case_freed_in_top(void)
{
    char *a = malloc(CASE_BIG);
    char *b = malloc(CASE_BIG);
    free(b);
    free(a);
    return b;
}

/*
 * case_freed_guarded - one CASE_BIG block p and a live CASE_BIG guard after
 * it; free(p).
 * Leaves p alone in the unsorted bin (its first words are now free-list
 * links) and the guard's PREV_INUSE clear.  Returns p.
 */
static inline char *case_freed_guarded(void)
{
    char *p = malloc(CASE_BIG);
    char *guard = malloc(CASE_BIG);
    (void)guard;
    free(p);
    return p;
}

/*
 * case_live_zeroed - a live 64-byte block p, zeroed, with a live 64-byte
 * guard after it.
 * Every word inside p is 0, so a pointer into p finds zeros where a header
 * would be.  Returns p.
 */
static inline char *case_live_zeroed(void)
{
    char *p = malloc(64);
    char *guard = malloc(64);
    (void)guard;
    memset(p, 0, 64);
    return p;
}

/*
 * case_fastbin_one - a CASE_FAST block a and a live guard after it; the
 * tcache bin of their class filled; free(a).
 * Leaves a alone in the 32-byte fastbin (the tcache bin full), so the next
 * malloc_consolidate or fastbin pop (after case_drain_tcache) meets it.
 * Returns a.
 */
static inline char *case_fastbin_one(void)
{
    char *a = malloc(CASE_FAST);
    char *guard = malloc(CASE_FAST);
    (void)guard;
    case_fill_tcache(CASE_FAST);
    free(a);
    return a;
}

/* Two blocks freed into one fastbin. */
struct case_fast_pair {
    char *a;
    char *b;
};

/*
 * case_fastbin_pair - CASE_FAST blocks a, [x,] b and a live guard; the
 * tcache bin of their class filled; free(a), free(b).
 * @apart: nonzero allocates a live block x between a and b, so that
 * malloc_consolidate cannot merge a and b with each other.
 * Leaves the 32-byte fastbin b -> a (the tcache bin full).
 */
static inline struct case_fast_pair case_fastbin_pair(int apart)
{
    struct case_fast_pair f;
    f.a = malloc(CASE_FAST);
    if (apart) {
        char *x = malloc(CASE_FAST);
        (void)x;
    }
    f.b = malloc(CASE_FAST);
    char *guard = malloc(CASE_FAST);
    (void)guard;
    case_fill_tcache(CASE_FAST);
    free(f.a);
    free(f.b);
    return f;
}

/*
 * case_fastbin_dup - case_fastbin_pair(@apart), then a use-after-free
 * write that wipes a's second and third words, then free(a) again.
 * A chunk in a fastbin carries the tcache key and a fastbin mark there,
 * which catch the second free at once (doublefree_fastbin_middle.c); with
 * them wiped, a is not the fastbin's top, so the fasttop check lets it in:
 * the fastbin is a -> b -> a, the "fastbin dup", for the checks that meet
 * it later.  Returns a.
 */
static inline char *case_fastbin_dup(int apart)
{
    struct case_fast_pair f = case_fastbin_pair(apart);
    memset(f.a + sizeof(size_t), 0, 2 * sizeof(size_t));   /* the use after free */
    free(f.a);
    return f.a;
}

/* Blocks whose chunks are all in one large bin's range (1088..1151 bytes),
 * beyond the tcache. */
struct case_largebin {
    char *a;    /* chunk 1136, the largest; NULL from case_largebin_two */
    char *a_guard;  /* the live 24-byte block after a; NULL from _two */
    char *b;    /* chunk 1120 */
    char *c;    /* chunk 1088, the smallest */
    char *v;    /* chunk 1104, live, to be filed in; NULL from _two */
};

/*
 * case_largebin_three - chunks of 1136 (a), 1120 (b), 1088 (c) and 1104
 * (v) bytes, each followed by a live 24-byte guard; free(a), free(b),
 * free(c), then malloc(CASE_BIG).
 * The request sorts a, b, c off the unsorted bin into their large bin,
 * largest first (a -> b -> c, c the last); v stays live.  A later free(v)
 * and malloc(CASE_BIG) file v into that bin, just before c.
 */
static inline struct case_largebin case_largebin_three(void)
{
    struct case_largebin l;
    l.a = malloc(1128);
    l.a_guard = malloc(24);
    l.b = malloc(1112);
    (void)malloc(24);
    l.c = malloc(1080);
    (void)malloc(24);
    l.v = malloc(1096);
    (void)malloc(24);
    free(l.a);
    free(l.b);
    free(l.c);
    (void)malloc(CASE_BIG);
    return l;
}

/*
 * case_largebin_two - chunks of 1120 (b) and 1088 (c) bytes, each followed
 * by a live 24-byte guard; free(b), free(c), then malloc(CASE_BIG).
 * The request sorts b, c into their large bin, largest first (b -> c, c
 * the last, its fd the bin).  A later malloc(1096) (chunk 1104) is served
 * from that bin, searching up from c along the bk links.
 */
static inline struct case_largebin case_largebin_two(void)
{
    struct case_largebin l = { NULL, NULL, NULL, NULL, NULL };
    l.b = malloc(1112);
    (void)malloc(24);
    l.c = malloc(1080);
    (void)malloc(24);
    free(l.b);
    free(l.c);
    (void)malloc(CASE_BIG);
    return l;
}

/* Debug mode (options=mode=debug): a block of an unaligned request
 * starts this many bytes (its leading redzone) after its chunk's header;
 * the header's size word is the 8 bytes before the redzone. */
#define CASE_DEBUG_LEAD 16

/* Debug mode: the address of block @p's chunk size word. */
static inline size_t *case_debug_size_word(void *p)
{
    return (size_t *)((char *)p - CASE_DEBUG_LEAD - sizeof(size_t));
}

/* What case_inside's handler needs: the program's stderr and the code to
 * run. */
struct case_inside_state {
    int saved_stderr;
    void (*fn)(void);
};
static inline struct case_inside_state *case_inside_state(void)
{
    static struct case_inside_state st = { -1, NULL };
    return &st;
}
static inline void case_inside_handler(int sig)
{
    (void)sig;
    dup2(case_inside_state()->saved_stderr, 2);
    case_inside_state()->fn();
}

/*
 * case_inside - run @fn as a signal handler that interrupts the allocator
 * in the middle of one of its own calls, as a handler of an asynchronous
 * signal may: malloc_stats() writes to stderr, which is made a pipe whose
 * reader is closed, so its first write raises SIGPIPE right there, inside
 * malloc_stats.  The handler gives stderr back before it calls @fn, so
 * what @fn's calls report is the first thing on the real stderr.
 */
static inline void case_inside(void (*fn)(void))
{
    int fds[2];
    if (pipe(fds) != 0)
        return;
    close(fds[0]);
    case_inside_state()->saved_stderr = dup(2);
    case_inside_state()->fn = fn;
    signal(SIGPIPE, case_inside_handler);
    dup2(fds[1], 2);
    malloc_stats();
    dup2(case_inside_state()->saved_stderr, 2);
}

/*
 * case_past_top - malloc_trim(0), then the 16-byte aligned address @off
 * bytes past block @p.
 * The trim cuts the top chunk back to its pad (128 KiB), so when @p is
 * among the heap's last blocks and @off is larger than that, the address
 * lies above the top chunk: in the part of the heap region chunkguard
 * keeps inaccessible until the top grows into it.  (malloc_trim also
 * consolidates the fastbins: call it before freeing into them.)
 */
static inline char *case_past_top(const char *p, size_t off)
{
    malloc_trim(0);
    return (char *)(((uintptr_t)p + off) & ~(uintptr_t)15);
}

/* A block of the 144-byte chunk class (beyond the fastbins) in its small
 * bin, between live blocks of the same class. */
struct case_smallbin {
    char *before;   /* live, just before a */
    char *a;        /* freed, alone in its small bin */
    char *guard;    /* live, just after a: keeps it from the top chunk */
};

/*
 * case_smallbin_one - live 136-byte blocks before, a and guard, in address
 * order; the tcache bin of their class filled; free(a), then
 * malloc(CASE_BIG).
 * The request sorts a from the unsorted bin into its small bin, alone.
 * The tcache bin stays full: after case_drain_tcache(136), the next
 * malloc(136) takes a from the small bin.
 */
static inline struct case_smallbin case_smallbin_one(void)
{
    struct case_smallbin s;
    s.before = malloc(136);
    s.a = malloc(136);
    s.guard = malloc(136);
    case_fill_tcache(136);
    free(s.a);                        /* unsorted bin */
    (void)malloc(CASE_BIG);           /* sorts a into its small bin */
    return s;
}

#endif /* !__cplusplus */

#endif /* CG_CASE_H */
