/*
 * heapcheck.c — cg_verify_heap(): a full walk of the heap that checks every
 * structure against every other (heapcheck.h, docs/design.md "The heap
 * verifier").  The invariants are ptmalloc's, as glibc's MALLOC_DEBUG
 * do_check_malloc_state states them, plus chunkguard's own maps; the code
 * is ours.
 *
 * Order of work, with every lock held (arena list, arenas by index,
 * big-block registry, shadow records, quarantine — the fork handlers'
 * order, docs/design.md "Fork"):
 *   1. each arena's heap list, bins and fastbins (the fastbin heads are a
 *      snapshot: under the arena lock nothing pops, and a lock-free push
 *      only adds in front of the head we read), counting entries;
 *   2. the entries go into a scratch hash set (mmap'd, never malloc);
 *   3. each heap is walked chunk by chunk from its first chunk to its top
 *      chunk or fencepost: sizes, start bitmap, PREV_INUSE, bins;
 *   4. the calling thread's tcache, the big-block registry, and in debug
 *      mode the quarantine and the shadow records.
 * Every pointer is validated against the heap map and the heap's bounds
 * before it is followed, and every list walk is bounded (Brent's cycle
 * detection on singly linked lists, the bk check on doubly linked ones), so
 * a corrupted heap yields reports, never a fault or a hang.
 *
 * Problems are recorded (kind, address, a line of detail) while the locks
 * are held and reported after they are dropped: a report takes the report
 * lock, which the fork handlers take before the arena locks.
 */
#include "heapcheck.h"

#include "arena.h"
#include "bigblock.h"
#include "debug.h"
#include "quarantine.h"
#include "render.h"
#include "shadow.h"
#include "tcache.h"

static const char *const kind_names[HC_KIND_COUNT] = {
#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence)
#define CG_VERIFY_ENTRY(id, token, name, what) [HC_##id] = name,
#include "checks.def"
};
static const cg_error_t kind_errors[HC_KIND_COUNT] = {
#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence)
#define CG_VERIFY_ENTRY(id, token, name, what) [HC_##id] = CG_E_##token,
#include "checks.def"
};
static_assert(HC_KIND_COUNT <= 64, "the test mask has 64 bits");

const char *cg_heapcheck_kind_name(int k)
{
    return k >= 0 && k < HC_KIND_COUNT ? kind_names[k] : "?";
}

/* Test builds (tests/heapcheck/heapcheck.mk) compile this file with
 * CG_HEAPCHECK_MUTABLE=1: a mask then drops the problems of chosen kinds,
 * so that each kind's test can be shown to fail without its check.
 * Shipped builds have no mask. */
#ifndef CG_HEAPCHECK_MUTABLE
#define CG_HEAPCHECK_MUTABLE 0
#endif
#if CG_HEAPCHECK_MUTABLE
uint64_t cg_heapcheck_off_mask CG_HIDDEN;
#define KIND_OFF(k) ((cg_heapcheck_off_mask >> (k)) & 1)
#else
#define KIND_OFF(k) 0
#endif

/* ---- recorded problems ------------------------------------------------ */

#define DETAIL_MAX 240
#define RECORD_MAX 128        /* problems kept for reports; the rest are counted */

typedef struct problem {
    int kind;
    const void *addr;
    char detail[DETAIL_MAX];
} problem_t;

/* Where a chunk was found on the free lists (the hash set's value). */
enum { IN_BIN = 0, IN_FAST = 1 };

typedef struct slot {
    uintptr_t key;            /* chunk address; 0: empty                     */
    uint16_t list;            /* bin index, or fastbin index                 */
    uint8_t where;            /* IN_BIN, IN_FAST                             */
} slot_t;

typedef struct hc {
    size_t found;             /* problems found                              */
    size_t nrec, cap;         /* problems recorded, and room for them        */
    problem_t *rec;
    problem_t spare[2];       /* when the record mapping cannot be made      */
    slot_t *set;              /* free-list entries (NULL: no scratch memory) */
    size_t set_cap;
    size_t entries;           /* free-list entries counted in step 1         */
    bool single;              /* no other thread can allocate meanwhile      */
} hc_t;

/* Count a problem; return the buffer its detail goes into (after the
 * "heap check: <kind>: " prefix), or NULL when it is not kept. */
static char *note(hc_t *x, int kind, const void *addr, size_t *room)
{
    if (KIND_OFF(kind))
        return NULL;
    x->found++;
    if (x->nrec == x->cap)
        return NULL;
    problem_t *p = &x->rec[x->nrec++];
    p->kind = kind;
    p->addr = addr;
    size_t n = cg_fmt(p->detail, DETAIL_MAX, "heap check: %s: ", kind_names[kind]);
    *room = DETAIL_MAX - n;
    return p->detail + n;
}

/* NOTE(x, kind, addr, fmt, ...): count a problem and format its detail. */
#define NOTE(x, kind, addr, ...)                                   \
    do {                                                           \
        size_t room_;                                              \
        char *d_ = note((x), (kind), (addr), &room_);              \
        if (d_ != NULL)                                            \
            cg_fmt(d_, room_, __VA_ARGS__);                        \
    } while (0)

/* ---- validation of pointers before they are followed ------------------- */

/* Can a chunk header with its fd/bk be read at c: 16-byte aligned, in a
 * heap of ours, past its metadata and before the heap's in-use end?  And,
 * when av is given, is the heap av's? */
static bool readable_chunk(const cg_arena_t *av, const void *c)
{
    if (!cg_aligned_ok(c) || !cg_heap_readable(c, sizeof(cg_chunk_t)))
        return false;
    cg_heap_t *h = cg_heap_base(c);
    if (av != NULL && CG_LOAD(h->arena) != av)
        return false;
    return (const char *)c + sizeof(cg_chunk_t) <= cg_heap_end(h);
}

/* A chunk start of av's heaps (av NULL: any heap): readable, and marked
 * in the start bitmap. */
static bool chunk_start(const cg_arena_t *av, const void *c)
{
    return readable_chunk(av, c) && cg_start_test(cg_heap_base(c), c);
}

/* The size of chunk c if it is plausible (a multiple of 16, at least the
 * minimum, and the header after it readable in the same heap), else 0. */
static size_t sane_size(const cg_chunk_t *c)
{
    size_t size = cg_csize(c);
    if (size < CG_MINSIZE || (size & CG_ALIGN_MASK) ||
        size > (size_t)(cg_heap_end(cg_heap_base(c)) - (const char *)c) - CG_HDR_SZ)
        return 0;
    return size;
}

/* Brent's cycle detection (Brent 1980): a saved node, and a window that
 * doubles; O(mu + lambda) steps and two words. */
typedef struct brent {
    const void *saved;
    size_t power, steps;
} brent_t;

static bool brent_cycle(brent_t *b, const void *node)
{
    if (node == b->saved)
        return true;
    if (++b->steps == b->power) {
        b->saved = node;
        b->power *= 2;
        b->steps = 0;
    }
    return false;
}

/* ---- the hash set of free-list entries ---------------------------------- */

static size_t set_hash(uintptr_t key, size_t cap)
{
    return (size_t)(((key >> 4) * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static slot_t *set_find(const hc_t *x, const void *c)
{
    if (x->set == NULL)
        return NULL;
    for (size_t i = set_hash((uintptr_t)c, x->set_cap);; i = (i + 1) & (x->set_cap - 1)) {
        if (x->set[i].key == (uintptr_t)c)
            return &x->set[i];
        if (x->set[i].key == 0)
            return NULL;
    }
}

static const char *list_name(int where)
{
    return where == IN_BIN ? "bin" : "fastbin";
}

/* Insert chunk c found on list (where, idx); false when it was already in
 * that same list (a cycle, reported by the walk), so the insertion walk
 * stops.  In another list it is a problem. */
static bool set_add(hc_t *x, const cg_chunk_t *c, int where, size_t idx)
{
    slot_t *s = set_find(x, c);
    if (s != NULL) {
        if (s->where == where && s->list == idx)
            return false;
        NOTE(x, HC_MULTI, cg_chunk2mem((cg_chunk_t *)c),
             "the chunk at %p is in %s %zu and in %s %zu", (void *)c, list_name(s->where),
             (size_t)s->list, list_name(where), idx);
        return true;
    }
    size_t i = set_hash((uintptr_t)c, x->set_cap);
    while (x->set[i].key != 0)
        i = (i + 1) & (x->set_cap - 1);
    x->set[i] = (slot_t){ (uintptr_t)c, (uint16_t)idx, (uint8_t)where };
    return true;
}

/* ---- step 1: bins and fastbins ------------------------------------------ */

/* What step 1 learnt of one arena, for steps 2 and 3. */
typedef struct arena_lists {
    size_t bin_len[CG_NBINS];                /* entries that passed the checks */
    cg_chunk_t *fast_head[CG_NFASTBINS];     /* the snapshot                    */
    size_t fast_len[CG_NFASTBINS];
} arena_lists_t;

/* Does a free chunk of `size` belong in bin i? */
static bool bin_fits(size_t i, size_t size)
{
    return i == CG_UNSORTED || cg_bin_index(size) == i;
}

static void check_bin(hc_t *x, cg_arena_t *av, size_t i, arena_lists_t *al)
{
    cg_chunk_t *b = cg_bin_at(av, i), *prev = b, *c = b->fd;
    size_t n = 0, limit = av->system_mem / CG_MINSIZE + 1, prev_size = 0;
    bool whole = false;
    for (;;) {
        if (c == b) {
            whole = true;
            break;
        }
        if (!chunk_start(av, c)) {
            NOTE(x, HC_BIN_LINK, c, "bin %zu of arena %d: the link %p (after %p) is no "
                 "chunk of this arena", i, av->index, (void *)c, (void *)prev);
            break;
        }
        if (c->bk != prev) {
            NOTE(x, HC_BK, cg_chunk2mem(c), "bin %zu of arena %d: the bk of the chunk at %p "
                 "is %p, not the entry before it, %p", i, av->index, (void *)c,
                 (void *)c->bk, (void *)prev);
            break;
        }
        size_t size = sane_size(c);
        if (size == 0) {
            NOTE(x, HC_SIZE, cg_chunk2mem(c), "the free chunk at %p in bin %zu has the "
                 "size field 0x%x", (void *)c, i, cg_head(c));
            break;
        }
        if (!bin_fits(i, size))
            NOTE(x, HC_BIN_CLASS, cg_chunk2mem(c), "the %zu-byte chunk at %p is in bin %zu; "
                 "its size belongs in bin %zu", size, (void *)c, i, cg_bin_index(size));
        if (i >= CG_NSMALLBINS && n > 0 && size > prev_size)
            NOTE(x, HC_BIN_ORDER, cg_chunk2mem(c), "large bin %zu: the %zu-byte chunk at %p "
                 "comes after a %zu-byte one", i, size, (void *)c, prev_size);
        if (cg_prev_inuse(cg_at(c, size)))
            NOTE(x, HC_PREV_INUSE, cg_chunk2mem(c), "the chunk at %p is in bin %zu, but the "
                 "chunk after it has PREV_INUSE set", (void *)c, i);
        if (++n > limit) {
            NOTE(x, HC_CYCLE, b, "bin %zu of arena %d has more entries than the arena "
                 "has room for chunks", i, av->index);
            break;
        }
        prev_size = size;
        prev = c;
        c = c->fd;
    }
    if (whole && b->bk != prev)
        NOTE(x, HC_BK, b, "bin %zu of arena %d: its bk is %p, not its last chunk %p",
             i, av->index, (void *)b->bk, (void *)prev);
    if (n > 0 && i != CG_UNSORTED && !(av->binmap[i >> 5] & (1u << (i & 31))))
        NOTE(x, HC_BINMAP, b, "bin %zu of arena %d holds %zu chunks but its binmap bit "
             "is clear", i, av->index, n);
    al->bin_len[i] = n;
    x->entries += n;
}

static void check_fastbin(hc_t *x, cg_arena_t *av, size_t i, arena_lists_t *al)
{
    cg_chunk_t *p = __atomic_load_n(&av->fastbins[i], __ATOMIC_ACQUIRE);
    brent_t br = { p, 1, 0 };
    size_t n = 0;
    al->fast_head[i] = p;
    for (cg_chunk_t *prev = NULL; p != NULL; prev = p, p = cg_reveal(&p->fd, p->fd)) {
        if (n > 0 && brent_cycle(&br, p)) {
            NOTE(x, HC_CYCLE, cg_chunk2mem(p), "fastbin %zu of arena %d: the next pointers "
                 "come back to the chunk at %p", i, av->index, (void *)p);
            break;
        }
        if (!chunk_start(av, p)) {
            NOTE(x, HC_FAST_LINK, p, "fastbin %zu of arena %d: the next pointer %s "
                 "demangles to %p, no chunk of this arena", i, av->index,
                 prev ? "of a chunk" : "at the head", (void *)p);
            break;
        }
        size_t size = cg_csize(p);
        if (size < CG_MINSIZE || (size & CG_ALIGN_MASK) || cg_fastbin_index(size) != i) {
            NOTE(x, HC_FAST_CLASS, cg_chunk2mem(p), "the chunk at %p, size field 0x%x, is in "
                 "fastbin %zu (chunks of %zu bytes)", (void *)p, cg_head(p), i,
                 (i + 2) * CG_ALIGN);
            break;
        }
        if ((size = sane_size(p)) == 0) {
            NOTE(x, HC_SIZE, cg_chunk2mem(p), "the fastbin chunk at %p runs past its heap",
                 (void *)p);
            break;
        }
        if (!cg_prev_inuse(cg_at(p, size)))
            NOTE(x, HC_PREV_INUSE, cg_chunk2mem(p), "the chunk at %p is in fastbin %zu (which "
                 "keeps chunks in use), but the chunk after it has PREV_INUSE clear",
                 (void *)p, i);
        n++;
    }
    al->fast_len[i] = n;
    x->entries += n;
}

/* ---- step 2: fill the set ------------------------------------------------ */

static void fill_set(hc_t *x, cg_arena_t *av, const arena_lists_t *al)
{
    for (size_t i = 1; i < CG_NBINS; i++) {
        cg_chunk_t *b = cg_bin_at(av, i), *c = b->fd;
        for (size_t k = 0; k < al->bin_len[i] && set_add(x, c, IN_BIN, i); k++)
            c = c->fd;
    }
    for (size_t i = 0; i < CG_NFASTBINS; i++) {
        cg_chunk_t *p = al->fast_head[i];
        for (size_t k = 0; k < al->fast_len[i] && set_add(x, p, IN_FAST, i); k++)
            p = cg_reveal(&p->fd, p->fd);
    }
}

/* ---- step 3: the heap walk ------------------------------------------------ */

/* A walk's memory of the last two chunks. */
typedef struct walk {
    cg_chunk_t *prev;         /* the chunk before the current one (NULL: none) */
    bool prev_free;           /* ... which the current chunk says is free      */
} walk_t;

/* Check what chunk c (the current one, or the top chunk or fencepost that
 * ends the walk) says of the chunk before it. */
static void check_prev(hc_t *x, walk_t *w, const cg_chunk_t *c, bool at_top)
{
    bool pfree = !cg_prev_inuse(c);
    cg_chunk_t *p = w->prev;
    if (p == NULL) {
        if (pfree)
            NOTE(x, HC_PREV_INUSE, cg_chunk2mem((cg_chunk_t *)c), "the first chunk of a heap, "
                 "at %p, has PREV_INUSE clear", (void *)c);
        w->prev_free = false;
        return;
    }
    slot_t *s = set_find(x, p);
    if (pfree) {
        if (c->prev_size != cg_csize(p))
            NOTE(x, HC_PREV_INUSE, cg_chunk2mem((cg_chunk_t *)c), "the chunk at %p has "
                 "PREV_INUSE clear, but its prev_size 0x%x is not the size of the chunk "
                 "before it (0x%x)", (void *)c, c->prev_size, cg_csize(p));
        if (w->prev_free)
            NOTE(x, HC_ADJ_FREE, cg_chunk2mem(p), "the chunk at %p and the one before it are "
                 "both free (they should have been merged)", (void *)p);
        if (at_top)
            NOTE(x, HC_FREE_TOP, cg_chunk2mem(p), "the free chunk at %p is next to the top "
                 "chunk (it should have been merged into it)", (void *)p);
        if (x->set != NULL && s == NULL)
            NOTE(x, HC_NOT_BINNED, cg_chunk2mem(p), "the %zu-byte free chunk at %p is in no "
                 "bin", cg_csize(p), (void *)p);
    } else if (cg_mode.instrumented && x->single && s == NULL && cg_shadow_of(p, false, NULL) == NULL) {
        NOTE(x, HC_NO_RECORD, cg_chunk2mem(p), "the in-use chunk at %p (%zu bytes) has no "
             "shadow record", (void *)p, cg_csize(p));
    }
    w->prev_free = pfree;
}

/* The chunk that ends heap h's walk — the top chunk in the arena's
 * newest heap, the fencepost in an older one — or NULL after a report. */
static cg_chunk_t *walk_end(hc_t *x, cg_arena_t *av, cg_heap_t *h, bool newest)
{
    cg_chunk_t *e = newest ? av->top : CG_LOAD(h->fence);
    const char *end = cg_heap_end(h);
    if (cg_aligned_ok(e) && cg_heap_base(e) == h && (char *)e >= h->data &&
        (char *)e + CG_HDR_SZ <= end)
        return e;
    if (newest)
        NOTE(x, HC_TOP, e, "arena %d: the top chunk %p is not in its newest heap %p",
             av->index, (void *)e, (void *)h);
    else
        NOTE(x, HC_FENCE, h, "arena %d: the fencepost of heap %p is %p, outside it",
             av->index, (void *)h, (void *)e);
    return NULL;
}

static void check_top(hc_t *x, cg_arena_t *av, cg_heap_t *h, cg_chunk_t *t)
{
    size_t size = cg_csize(t);
    if ((char *)t + size != cg_heap_end(h) || size < CG_MINSIZE || (size & CG_ALIGN_MASK))
        NOTE(x, HC_TOP, cg_chunk2mem(t), "arena %d: the top chunk at %p has size 0x%x; it "
             "must end at the heap's end %p", av->index, (void *)t, size,
             (void *)cg_heap_end(h));
    else if (!cg_heap_span_clear(h, t, size))
        NOTE(x, HC_STARTMAP, cg_chunk2mem(t), "a chunk-start bit is set inside the top chunk "
             "at %p", (void *)t);
    if (!cg_start_test(h, t))
        NOTE(x, HC_STARTMAP, cg_chunk2mem(t), "the top chunk at %p has no chunk-start bit",
             (void *)t);
}

/* An old heap ends with a fencepost f (16 or 32 bytes, in use, no start
 * bit) and a zero-size end marker with PREV_INUSE set (arena.c close_heap). */
static void check_fence(hc_t *x, cg_heap_t *h, cg_chunk_t *f)
{
    size_t fs = cg_csize(f);
    cg_chunk_t *m = cg_at(f, fs);
    if ((fs != CG_HDR_SZ && fs != 2 * CG_HDR_SZ) || (char *)m + CG_HDR_SZ != cg_heap_end(h) ||
        cg_head(m) != CG_PREV_INUSE || cg_start_test(h, f))
        NOTE(x, HC_FENCE, f, "heap %p: the fencepost at %p (size field 0x%x) and the end "
             "marker after it are not as the arena left them", (void *)h, (void *)f,
             cg_head(f));
}

static void walk_heap(hc_t *x, cg_arena_t *av, cg_heap_t *h, bool newest)
{
    cg_chunk_t *stop = walk_end(x, av, h, newest);
    if (stop == NULL)
        return;
    char *end = cg_heap_end(h);
    walk_t w = { NULL, false };
    cg_chunk_t *c = (cg_chunk_t *)h->data;
    int endkind = newest ? HC_TOP : HC_FENCE;
    const char *endname = newest ? "top chunk" : "fencepost";
    while (c != stop) {
        if ((char *)c + CG_HDR_SZ > end || c > stop) {
            NOTE(x, endkind, c, "heap %p: the chunks step over its %s %p (reached %p)",
                 (void *)h, endname, (void *)stop, (void *)c);
            return;
        }
        size_t head = cg_head(c), size = sane_size(c);
        if (size == 0 || (head & ~(CG_PREV_INUSE | ~CG_FLAG_BITS))) {
            NOTE(x, HC_SIZE, cg_chunk2mem(c), "the chunk at %p has the size field 0x%x "
                 "(heap %p, in use to %p)", (void *)c, head, (void *)h, (void *)end);
            return;
        }
        if (!cg_start_test(h, c))
            NOTE(x, HC_STARTMAP, cg_chunk2mem(c), "the chunk at %p has no chunk-start bit",
                 (void *)c);
        else if (!cg_heap_span_clear(h, c, size))
            NOTE(x, HC_STARTMAP, cg_chunk2mem(c), "a chunk-start bit is set inside the "
                 "%zu-byte chunk at %p", size, (void *)c);
        check_prev(x, &w, c, false);
        w.prev = c;
        c = cg_at(c, size);
    }
    check_prev(x, &w, stop, newest);
    if (newest)
        check_top(x, av, h, stop);
    else
        check_fence(x, h, stop);
}

/* The arena's heaps, newest first, each a mapped heap of this arena. */
static void walk_heaps(hc_t *x, cg_arena_t *av)
{
    brent_t br = { av->heap, 1, 0 };
    size_t n = 0;
    for (cg_heap_t *h = av->heap, *newer = NULL; h != NULL; newer = h, h = h->prev, n++) {
        if (n > 0 && brent_cycle(&br, h)) {
            NOTE(x, HC_HEAP, h, "arena %d: its list of heaps comes back to %p", av->index,
                 (void *)h);
            return;
        }
        if (((uintptr_t)h & (CG_HEAP_MAX - 1)) != 0 || !cg_in_heap(h)) {
            NOTE(x, HC_HEAP, h, "arena %d: the heap list holds %p (after %p), which is not "
                 "a mapped heap", av->index, (void *)h, (void *)newer);
            return;
        }
        /* chunk_slots bounds the inline tcache pop's link test: a wrong one
         * would let a link into the inaccessible part through */
        if (h->arena != av || h->data != (char *)h + CG_HEAP_DATA_OFF ||
            h->size < CG_HEAP_DATA_OFF + CG_MINSIZE || h->size > CG_HEAP_USE_MAX ||
            h->chunk_slots != (h->size - CG_HEAP_DATA_OFF) / CG_ALIGN - 1) {
            NOTE(x, HC_HEAP, h, "arena %d: the header of heap %p is damaged (arena %p, "
                 "size 0x%x, chunk slots 0x%x)", av->index, (void *)h, (void *)h->arena,
                 h->size, h->chunk_slots);
            return;
        }
        walk_heap(x, av, h, newer == NULL);
    }
}

/* ---- step 4: tcache, big blocks, debug records ---------------------------- */

static void check_tcache_bin(hc_t *x, const cg_tcache_t *tc, size_t idx)
{
    cg_tentry_t *e = tc->entries[idx];
    size_t n = 0, count = tc->counts[idx];
    for (; e != NULL && n <= count; n++) {
        cg_chunk_t *c = cg_mem2chunk(e);
        if (!chunk_start(NULL, c)) {
            NOTE(x, HC_TC_LINK, e, "tcache bin %zu: the entry %p is no chunk of ours",
                 idx, (void *)e);
            return;
        }
        size_t size = cg_csize(c);
        if (size < CG_MINSIZE || cg_csize2tidx(size) != idx || sane_size(c) == 0) {
            NOTE(x, HC_TC_CLASS, e, "tcache bin %zu (chunks of %zu bytes) holds the chunk at %p, "
                 "size field 0x%x", idx, CG_MINSIZE + idx * CG_ALIGN, (void *)c, cg_head(c));
            return;
        }
        if (!cg_prev_inuse(cg_at(c, size)))
            NOTE(x, HC_PREV_INUSE, e, "the chunk at %p is in the tcache (which keeps chunks "
                 "in use), but the chunk after it has PREV_INUSE clear", (void *)c);
        if (e->key != cg_tcache_key)
            NOTE(x, HC_TC_KEY, e, "the tcache entry %p no longer holds the tcache key (a "
                 "write after free?)", (void *)e);
        slot_t *s = set_find(x, c);
        if (s != NULL)
            NOTE(x, HC_MULTI, e, "the chunk at %p is in tcache bin %zu and in %s %zu",
                 (void *)c, idx, list_name(s->where), (size_t)s->list);
        e = cg_reveal(&e->next, e->next);
    }
    if (n != count || e != NULL)
        NOTE(x, HC_TC_COUNT, tc, "tcache bin %zu counts %zu entries; its list has %s%zu",
             idx, count, e != NULL ? "more than " : "", n);
}

static void check_big(const cg_chunk_t *c, size_t maplen, void *arg)
{
    hc_t *x = arg;
    if (!cg_aligned_ok(c) || cg_in_heap(c)) {
        NOTE(x, HC_BIG, c, "the big-block registry holds %p, which cannot be a big block",
             (void *)c);
        return;
    }
    size_t off = c->prev_size, size = cg_csize(c);
    if (!cg_is_mmapped(c) || off >= maplen || size + off != maplen ||
        (((uintptr_t)c - off) & (cg_pagesize - 1)) != 0)
        NOTE(x, HC_BIG, cg_chunk2mem((cg_chunk_t *)c), "the mmap'd block at %p has the header "
             "(offset 0x%x, size field 0x%x); the registry says its mapping is %zu bytes",
             (void *)c, off, cg_head(c), maplen);
}

/* The first byte in [p, p + len) that is not b, or NULL. */
static const unsigned char *differs(const unsigned char *p, size_t len, unsigned char b)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != b)
            return p + i;
    return NULL;
}

/* The big-block registry's lookups made while the verifier holds every
 * lock: a call that takes no lock. */
static const cg_call_t holding_all = { .caller = 0, .op = "cg_verify_heap", .tc = NULL,
                                       .mt = false };

/* Is r's chunk a block the core holds in use (a heap chunk start whose next
 * chunk says so, or a registered big block)?  Reports and returns false
 * when it is not; sets *usable. */
static bool record_chunk(hc_t *x, const cg_shadow_t *r, size_t *usable)
{
    const cg_chunk_t *c = r->chunk;
    bool header_ok;
    if (!cg_in_heap(c)) {
        if (!cg_aligned_ok(c) || !cg_big_owns(c, &holding_all, &header_ok)) {
            NOTE(x, HC_BIG, c, "the shadow record %zu names the mmap'd block %p, which the "
                 "ownership map does not know", (size_t)r->id, (void *)c);
            return false;
        }
        if (!header_ok)           /* reported by the registry walk */
            return false;
        *usable = cg_big_usable(c);
        return true;
    }
    size_t size;
    if (!chunk_start(NULL, c) || (size = sane_size(c)) == 0) {
        NOTE(x, HC_SHADOW, c, "the shadow record %zu names %p, which is no chunk of ours",
             (size_t)r->id, (void *)c);
        return false;
    }
    if (cg_shadow_of(c, false, NULL) != r)
        NOTE(x, HC_SHADOW, cg_chunk2mem((cg_chunk_t *)c), "the shadow map at the chunk %p "
             "does not lead to its record %zu", (void *)c, (size_t)r->id);
    if (!cg_prev_inuse(cg_at(c, size))) {
        NOTE(x, HC_SHADOW, cg_chunk2mem((cg_chunk_t *)c), "the shadow record %zu says the "
             "block at %p is held, but the heap says its chunk is free", (size_t)r->id,
             cg_shadow_user(r));
        return false;
    }
    *usable = cg_heap_usable(c);
    return true;
}

/* The header copy and both redzones of a block the program or the
 * quarantine holds. */
static void check_block(hc_t *x, const cg_shadow_t *r, size_t usable)
{
    const cg_chunk_t *c = r->chunk;
    if ((cg_head(c) | CG_PREV_INUSE) != (r->head | CG_PREV_INUSE))
        NOTE(x, HC_SHADOW, cg_chunk2mem((cg_chunk_t *)c), "the chunk header at %p is 0x%x; "
             "its shadow record's copy is 0x%x", (void *)c, cg_head(c), r->head);
    if (r->lead > usable || r->req > usable - r->lead) {
        NOTE(x, HC_SHADOW, cg_shadow_user(r), "the shadow record %zu says %zu + %zu bytes; "
             "the chunk has %zu", (size_t)r->id, (size_t)r->lead, r->req, usable);
        return;
    }
    const unsigned char *u = cg_shadow_user(r), *bad;
    uint32_t hint = CG_LOAD(*cg_shadow_hint(c));
    if (hint != r->id)
        NOTE(x, HC_REDZONE, cg_shadow_hint(c), "the record hint before the %zu-byte %s block at "
             "%p is %zu, not its record's id %zu", r->req,
             r->state == CG_SH_LIVE ? "live" : "quarantined", (void *)u, (size_t)hint,
             (size_t)r->id);
    size_t lz = cg_dbg_lead_checked(r->lead);
    if ((bad = cg_dbg_lead_bad(r->kind, u, lz)) != NULL ||
        (bad = differs(u + r->req, usable - r->lead - r->req, CG_DBG_REDZONE)) != NULL)
        NOTE(x, HC_REDZONE, bad, "a redzone byte %s the %zu-byte %s block at %p is 0x%x",
             bad < u ? "before" : "after", r->req,
             r->state == CG_SH_LIVE ? "live" : "quarantined", (void *)u, (size_t)*bad);
}

static void check_quarantined(cg_shadow_t *r, void *arg)
{
    hc_t *x = arg;
    size_t usable;
    if (r->state != CG_SH_QUARANTINED) {
        NOTE(x, HC_SHADOW, r->chunk, "the quarantine holds record %zu, which is not marked "
             "freed", (size_t)r->id);
        return;
    }
    if (!record_chunk(x, r, &usable))
        return;
    check_block(x, r, usable);
    const unsigned char *u = cg_shadow_user(r), *bad;
    if (r->lead <= usable && r->req <= usable - r->lead &&
        (bad = differs(u, cg_dbg_poison_len(r->req), cg_dbg_poison_byte())) != NULL)
        NOTE(x, HC_POISON, bad, "offset %zu of the freed %zu-byte block at %p is 0x%x",
             (size_t)(bad - u), r->req, (void *)u, (size_t)*bad);
}

/* Every record: its chunk is held, the map leads back to it; a live
 * block's header copy and redzones.  (Quarantined ones: the quarantine
 * walk; records being created or freed right now have no settled state.) */
static void check_record(cg_shadow_t *r, void *arg)
{
    hc_t *x = arg;
    uint8_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
    size_t usable;
    if (r->guarded)            /* pages of its own: no chunk; guard.c checks its slack */
        return;
    if ((st != CG_SH_LIVE && st != CG_SH_QUARANTINED && st != CG_SH_RELEASED) ||
        !record_chunk(x, r, &usable))
        return;
    if (st == CG_SH_LIVE)
        check_block(x, r, usable);
}

/* ---- driver ---------------------------------------------------------------- */

static void lock_everything(void)
{
    cg_arenas_lock_all(NULL);
    cg_big_lock_all(NULL);
    cg_shadow_lock_all(NULL);
    cg_quarantine_lock_all(NULL);
}

static void unlock_everything(void)
{
    cg_quarantine_unlock_all(false);
    cg_shadow_unlock_all(false);
    cg_big_unlock_all(false);
    cg_arenas_unlock_all(false);
}

static void make_set(hc_t *x)
{
    size_t cap = 64;
    while (cap < 2 * x->entries + 16)
        cap *= 2;
    x->set = cg_os_map_guarded(cap * sizeof(slot_t));
    x->set_cap = x->set ? cap : 0;
}

/* Everything, with every lock held.  Step 1's findings for all arenas are
 * kept (in a scratch mapping) until the set is filled: the set is sized
 * from the entries step 1 counted. */
static void verify_locked(hc_t *x)
{
    size_t narenas = 0, k = 0;
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av))
        narenas++;              /* the list lock is held: no arena is added now */
    size_t bytes = narenas * sizeof(arena_lists_t);
    arena_lists_t *all = cg_os_map_guarded(bytes), one;
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av), k++) {
        arena_lists_t *al = all != NULL ? &all[k] : &one;
        for (size_t i = 1; i < CG_NBINS; i++)
            check_bin(x, av, i, al);
        for (size_t i = 0; i < CG_NFASTBINS; i++)
            check_fastbin(x, av, i, al);
    }
    /* Without scratch memory the membership checks (free chunk in no bin,
     * chunk on two lists) are skipped; everything else still runs. */
    if (all != NULL) {
        make_set(x);
        k = 0;
        for (cg_arena_t *av = &cg_main_arena; x->set && av != NULL; av = cg_arena_next(av))
            fill_set(x, av, &all[k++]);
        cg_os_unmap_guarded(all, bytes);
    }
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av))
        walk_heaps(x, av);
    cg_tcache_t *tc = cg_self.cache;
    if (tc != NULL)
        for (size_t i = 0; i < CG_TCACHE_BINS; i++)
            check_tcache_bin(x, tc, i);
    cg_big_each_locked(check_big, x);
    if (cg_mode.instrumented) {
        cg_quarantine_each_locked(check_quarantined, x);
        cg_shadow_each(check_record, x);
    }
}

/* Write the recorded problems (no lock held), and one line for those not
 * kept.  With a report callback, or halt_on_error=0 in debug mode, each
 * report returns; otherwise the first ends the process. */
static void report_all(hc_t *x, const cg_call_t *call)
{
    bool recoverable = cg_mode.instrumented || cg_report_has_callback();
    uintptr_t pc = call->caller;
    const char *op = call->op ? call->op : "cg_verify_heap";
    for (size_t i = 0; i <= x->nrec; i++) {
        char more[160];
        cg_rdata_t d = {
            .op = op, .tid = cg_self.tid ? (int)cg_self.tid - 1 : -1,
            .stacks = { { NULL, -1, &pc, 1 } }, .nstacks = 1,
        };
        if (i < x->nrec) {
            d.kind = kind_errors[x->rec[i].kind];
            d.addr = x->rec[i].addr;
            d.message = x->rec[i].detail;
        } else if (x->found > x->nrec) {
            cg_fmt(more, sizeof more, "heap check: %zu more problems found, not listed",
                   x->found - x->nrec);
            d.kind = CG_E_HEAP_CORRUPTION;
            d.message = more;
        } else {
            break;
        }
        cg_report_emit(&d, recoverable);
    }
}

CG_REALIGN size_t cg_verify_heap_impl(const cg_call_t *call)
{
    hc_t x = { .single = CG_SINGLE_THREAD_P };
    x.rec = cg_os_map_guarded(RECORD_MAX * sizeof(problem_t));
    x.cap = x.rec ? RECORD_MAX : sizeof x.spare / sizeof x.spare[0];
    if (x.rec == NULL)
        x.rec = x.spare;
    lock_everything();
    verify_locked(&x);
    unlock_everything();
    if (x.set != NULL)
        cg_os_unmap_guarded(x.set, x.set_cap * sizeof(slot_t));
    report_all(&x, call);
    if (x.rec != x.spare)
        cg_os_unmap_guarded(x.rec, RECORD_MAX * sizeof(problem_t));
    return x.found;
}

/* ---- verify_interval ---------------------------------------------------------- */

static size_t ops;            /* allocator operations counted (all threads) */

void cg_verify_tick_slow(const cg_call_t *call)
{
    size_t n = CG_ADD_IF(&ops, 1, call->mt);
    if (n % (size_t)cg_opt.verify_interval == 0)
        cg_verify_heap_impl(call);
}
