/*
 * diff.c — randomized differential test of the allocator against its
 * contract (issue 2, point 8).
 *
 * usage: diff [-n OPS] [-s SEED] [-l SLOTS]
 *   OPS    operations to run (default 1000000)
 *   SEED   PRNG seed (default 1; printed, so any failure can be replayed)
 *   SLOTS  live-block slots (default 1000)
 * A model keeps, per slot, the block, its requested size, its alignment
 * and a tag (slot, generation).  Each operation is malloc, calloc,
 * realloc, memalign or free (free_sized in chunkguard builds) with sizes
 * 0..300 KB, mostly small.  Every block is filled with a pattern derived
 * from its tag; on every free and realloc the contents, alignment and
 * usable size are checked, every 10^4 operations all live blocks are
 * checked not to overlap.  Exit status 0 when everything held, 1 on the
 * first violation (described on stderr), 2 on bad usage.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct slot {
    unsigned char *p;   /* the block, NULL when the slot is empty          */
    size_t size;        /* bytes requested                                 */
    size_t align;       /* alignment promised (16, or memalign's)          */
    uint64_t tag;       /* slot << 32 | generation: seeds the pattern      */
};

static struct slot *slots;
static size_t nslots = 1000;
static uint64_t rng_state;
static unsigned long long op_no;

/* xorshift64*: fast, and the sequence depends only on the seed. */
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static void fail(const char *what, size_t i)
{
    fprintf(stderr, "diff: FAIL at op %llu, slot %zu: %s (block %p, size %zu, align %zu)\n",
            op_no, i, what, (void *)slots[i].p, slots[i].size, slots[i].align);
    exit(1);
}

/* Pattern word @k of tag @tag: word-sized so 10^6 operations on blocks of
 * up to 300 KB stay fast; the index is mixed in to catch shifted copies. */
static inline uint64_t word(uint64_t tag, size_t k)
{
    return (tag * 0x9E3779B97F4A7C15ull) ^ (k * 0xD6E8FEB86659FD93ull);
}

static void fill(unsigned char *p, size_t n, uint64_t tag)
{
    size_t k, full = n / 8;
    for (k = 0; k < full; k++) {
        uint64_t w = word(tag, k);
        memcpy(p + 8 * k, &w, 8);
    }
    uint64_t w = word(tag, k);
    memcpy(p + 8 * k, &w, n % 8);
}

/* Returns 1 when the first @n bytes at @p hold @tag's pattern. */
static int intact(const unsigned char *p, size_t n, uint64_t tag)
{
    size_t k, full = n / 8;
    for (k = 0; k < full; k++) {
        uint64_t w;
        memcpy(&w, p + 8 * k, 8);
        if (w != word(tag, k))
            return 0;
    }
    uint64_t w = word(tag, k);
    return memcmp(p + 8 * k, &w, n % 8) == 0;
}

/* Sizes 0..300 KB, mostly small: 70% up to 256, 20% up to 4 KiB, 9% up to
 * 64 KiB, 1% up to 300 KB (past the 128 KiB mmap threshold).  The big
 * ones dominate the run time, hence only 1%. */
static size_t pick_size(void)
{
    uint64_t r = rnd() % 100;
    if (r < 70) return rnd() % 257;
    if (r < 90) return rnd() % 4097;
    if (r < 99) return rnd() % 65537;
    return rnd() % 300001;
}

/* Checks alignment and usable size of the block in slot @i. */
static void verify_shape(size_t i)
{
    struct slot *s = &slots[i];
    if ((uintptr_t)s->p % s->align)
        fail("misaligned", i);
    if (T(malloc_usable_size)(s->p) < s->size)
        fail("usable size below the request", i);
}

/* Checks everything a live block owes us whenever we touch it. */
static void verify(size_t i)
{
    verify_shape(i);
    if (!intact(slots[i].p, slots[i].size, slots[i].tag))
        fail("contents changed", i);
}

static void allocate(size_t i)
{
    struct slot *s = &slots[i];
    size_t n = pick_size();
    uint64_t r = rnd() % 100;
    s->align = 16;
    if (r < 55) {
        s->p = T(malloc)(n);
    } else if (r < 75) {
        /* calloc, with the size split into nmemb * size when it divides. */
        size_t m = (n % 3 == 0 && n) ? 3 : 1;
        s->p = T(calloc)(m, n / m);
        if (s->p && !ut_all(s->p, n, 0))
            fail("calloc memory not zeroed", i);
    } else if (r < 90) {
        s->align = (size_t)1 << (rnd() % 17); /* 1 .. 64 KiB */
        s->p = T(memalign)(s->align, n);
        if (s->align < 16)
            s->align = 16;
    } else {
        s->p = T(realloc)(NULL, n);
    }
    if (!s->p)
        fail("allocation failed", i);
    s->size = n;
    s->tag = (uint64_t)i << 32 | (uint32_t)(s->tag + 1);
    verify_shape(i);
    fill(s->p, n, s->tag);
}

static void release(size_t i)
{
    struct slot *s = &slots[i];
    verify(i);
#if UT_HAVE_FREE_SIZED
    if (rnd() % 4 == 0) {
        if (s->align > 16)
            T(free_aligned_sized)(s->p, s->align, s->size);
        else
            T(free_sized)(s->p, s->size);
    } else
#endif
        T(free)(s->p);
    s->p = NULL;
}

static void resize(size_t i)
{
    struct slot *s = &slots[i];
    verify(i);
    size_t n = pick_size();
    /* Small steps too: growth in place and shrinking by a few bytes. */
    if (rnd() % 4 == 0)
        n = s->size + (size_t)(rnd() % 64) - (s->size < 32 ? 0 : 32);
    if (n == 0)
        n = 1; /* realloc(p, 0) frees: tested on its own in the unit tests */
    unsigned char *q = T(realloc)(s->p, n);
    if (!q)
        fail("realloc failed", i);
    s->p = q;
    size_t keep = n < s->size ? n : s->size;
    if (!intact(q, keep, s->tag))
        fail("realloc lost the prefix", i);
    s->size = n;
    s->align = 16; /* realloc keeps only the basic alignment */
    s->tag = (uint64_t)i << 32 | (uint32_t)(s->tag + 1);
    verify_shape(i);
    fill(q, n, s->tag);
}

struct range { uintptr_t lo, hi; size_t slot; };

static int by_address(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* No two live blocks share a byte of their usable size. */
static void check_overlap(struct range *r)
{
    size_t n = 0;
    for (size_t i = 0; i < nslots; i++)
        if (slots[i].p) {
            r[n].lo = (uintptr_t)slots[i].p;
            r[n].hi = r[n].lo + T(malloc_usable_size)(slots[i].p);
            r[n].slot = i;
            n++;
        }
    qsort(r, n, sizeof *r, by_address);
    for (size_t k = 1; k < n; k++)
        if (r[k].lo < r[k - 1].hi) {
            fprintf(stderr, "diff: slot %zu [%#" PRIxPTR ",%#" PRIxPTR ") overlaps slot %zu\n",
                    r[k].slot, r[k].lo, r[k].hi, r[k - 1].slot);
            fail("live blocks overlap", r[k].slot);
        }
}

int main(int argc, char **argv)
{
    unsigned long long ops = 1000000, seed = 1;
    int c;
    while ((c = getopt(argc, argv, "n:s:l:")) != -1) {
        switch (c) {
        case 'n': ops = strtoull(optarg, NULL, 0); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'l': nslots = strtoul(optarg, NULL, 0); break;
        default:
            fprintf(stderr, "usage: %s [-n OPS] [-s SEED] [-l SLOTS]\n", argv[0]);
            return 2;
        }
    }
    if (nslots == 0)
        return 2;
    printf("diff: backend=%s seed=%llu ops=%llu slots=%zu\n", UT_BACKEND, seed, ops, nslots);
    fflush(stdout);
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    /* The model's own memory comes from the system allocator on purpose
     * (calloc here is libc's or the sanitizer's in the cg_ build). */
    slots = calloc(nslots, sizeof *slots);
    struct range *ranges = calloc(nslots, sizeof *ranges);
    if (!slots || !ranges)
        return 1;
    unsigned long long counts[3] = {0};
    for (op_no = 0; op_no < ops; op_no++) {
        size_t i = rnd() % nslots;
        if (!slots[i].p) {
            allocate(i);
            counts[0]++;
        } else if (rnd() % 100 < 55) {
            release(i);
            counts[1]++;
        } else {
            resize(i);
            counts[2]++;
        }
        if (op_no % 10000 == 9999)
            check_overlap(ranges);
    }
    check_overlap(ranges);
    for (size_t i = 0; i < nslots; i++)
        if (slots[i].p)
            release(i);
    if (!ut_served_by_chunkguard(counts[0] / 4))
        return 1;
    printf("diff: ok: %llu allocations, %llu frees, %llu reallocs\n",
           counts[0], counts[1], counts[2]);
    free(ranges);
    free(slots);
    return 0;
}
