/*
 * describe.c — cg_describe: what chunkguard knows of an address, in words;
 * and the report of a fault on memory chunkguard keeps inaccessible
 * (describe.h).
 */
#include "describe.h"

#include "bigblock.h"
#include "checks.h"
#include "debug.h"
#include "debugblock.h"
#include "guard.h"
#include "maps.h"
#include "render.h"
#include "shadow.h"
#include "stackdepot.h"
#include "symbolize.h"


static size_t stack_lines(char *b, size_t cap, const char *title, uint32_t tid, uint32_t id)
{
    const uintptr_t *pcs;
    size_t n = cg_fmt(b, cap, "%s by thread T%d here:\n", title, (int)tid);
    size_t depth = id ? cg_stack_get(id, &pcs) : 0;
    if (depth == 0)
        return n + cg_fmt(b + n, cap - n, "    <no stack recorded>\n");
    return n + cg_format_stack(b + n, cap - n, pcs, depth, false);
}

/* Debug mode: from the block's shadow record; note: what a is besides
 * (guard_note), or "". */
static size_t describe_record(char *b, size_t cap, const char *a, const cg_shadow_t *r,
                              const char *note)
{
    const char *u = cg_shadow_user(r);
    bool live = cg_shadow_seen_live(r->state);
    const char *state = live ? "live" : r->guarded ? "freed (its pages sealed)"
                        : r->state == CG_SH_RELEASED ? "freed (out of the quarantine, not yet "
                                                       "reused)"
                                                     : "freed (in the quarantine)";
    size_t n;
    if (a < u)
        n = cg_fmt(b, cap, "%p is %zu bytes before", (const void *)a, (size_t)(u - a));
    else if (a >= u + r->req)
        n = cg_fmt(b, cap, "%p is %zu bytes past the end of", (const void *)a,
                   (size_t)(a - u - r->req));
    else
        n = cg_fmt(b, cap, "%p is %zu bytes inside", (const void *)a, (size_t)(a - u));
    n += cg_fmt(b + n, cap - n, " a %zu-byte region [%p, %p), %s, from %s()%s%s\n", r->req,
                (const void *)u, (const void *)(u + r->req), state, cg_kind_name(r->kind),
                r->guarded == CG_GUARDED_SLOT ? ", in a guard slot (sampled)"
                : r->guarded ? ", on guard pages of its own" : "", note);
    /* one read of the maps for every frame of the stacks, as a report
     * (base/maps.h), not one or more a frame (its module, its call
     * instruction's mapping) */
    bool snap = cg_maps_snapshot_begin();
    if (!live)
        n += stack_lines(b + n, cap - n, "freed", r->free_tid, r->free_stack);
    n += stack_lines(b + n, cap - n, "allocated", r->alloc_tid, r->alloc_stack);
    if (snap)
        cg_maps_snapshot_end();
    return n;
}

/* Fast mode: the chunk-start bitmap and the big-block registry. */
static size_t describe_core(char *b, size_t cap, const char *a, const cg_call_t *call)
{
    if (cg_in_heap(a)) {
        cg_heap_t *h = cg_heap_base(a);
        if (cg_heap_offset(a) < CG_HEAP_DATA_OFF)
            return cg_fmt(b, cap, "%p is in the metadata of a chunkguard heap at %p\n",
                          (const void *)a, (void *)h);
        cg_chunk_t *c = cg_heap_find_chunk(h, a);
        if (a >= cg_heap_end(h))
            return cg_fmt(b, cap, "%p is in a chunkguard heap, %zu bytes beyond its used "
                          "part (inaccessible until the heap grows)\n", (const void *)a,
                          (size_t)(a - cg_heap_end(h)));
        if (c == NULL)
            return cg_fmt(b, cap, "%p is in a chunkguard heap, before its first chunk\n",
                          (const void *)a);
        size_t size = cg_csize(c);
        const char *mem = cg_chunk2mem(c);
        const char *end = (const char *)c + size;
        bool top = end >= cg_heap_end(h);
        bool used = !top && cg_prev_inuse((const cg_chunk_t *)end);
        return cg_fmt(b, cap, "%p is %zu bytes %s the %s chunk at %p (%zu bytes)\n",
                      (const void *)a, (size_t)(a >= mem ? a - mem : mem - a),
                      a >= mem ? "into the memory of" : "before the memory of",
                      top ? "top (free space)" : used ? "in-use (or cached)" : "free",
                      (const void *)mem, size);
    }
    const cg_chunk_t *c = cg_mem2chunk(a);
    bool hdr;
    if (cg_aligned_ok(a) && cg_big_owns(c, call, &hdr))
        return cg_fmt(b, cap, "%p is a live mmap'd block of %zu usable bytes\n",
                      (const void *)a, cg_big_usable(c));
    return cg_fmt(b, cap, "%p is not in any chunkguard heap or mmap'd block\n", (const void *)a);
}

/* Where a is beside guarded block r, whose range holds it or is the
 * nearest to it: on the block's own pages (""), on the guard page
 * before or after them, or on pages of the guard region no block has
 * (a guard slot not in use, or a range not handed out or given back). */
static const char *guard_note(const char *a, const cg_shadow_t *r, bool own_range)
{
    uintptr_t u = (uintptr_t)cg_shadow_user(r), x = (uintptr_t)a;
    uintptr_t lo = u & ~(uintptr_t)(cg_pagesize - 1), hi = CG_PAGE_ROUND(u + r->req);
    if (x >= lo && x < hi)
        return "";
    if (!own_range)
        return "; the address is on pages of the guard region no block has (a guard "
               "slot not in use, or a range not handed out), nearest that block";
    return x < lo ? "; the address is on the guard page before the block"
                  : "; the address is on the guard page after the block";
}

size_t cg_describe_impl(const void *addr, char *buf, size_t cap, const cg_call_t *call)
{
    if (cap == 0)
        return 0;
    buf[0] = 0;
    const char *a = addr;
    /* guarded blocks (guard mode's, and sampled ones in every mode) and
     * their guard pages: the range's owner, else the nearest block, as a
     * fault there is blamed (guard.c) */
    if (cg_shadow_in_pages(a)) {
        cg_shadow_t *r = cg_shadow_of_page(a);
        bool own = r != NULL;
        if (r == NULL && (r = cg_guard_nearest(a)) == NULL)
            return cg_fmt(buf, cap, "%p is in chunkguard's guard region, on pages no block "
                          "has (a guard slot not in use, a guard page, or a range not handed "
                          "out), with no guarded block within 1 MiB\n", (const void *)a);
        return describe_record(buf, cap, a, r, guard_note(a, r, own));
    }
    if (cg_mode.instrumented) {
        cg_shadow_t *r = cg_shadow_find(a, call);
        if (r != NULL)
            return describe_record(buf, cap, a, r, "");
    }
    return describe_core(buf, cap, a, call);
}

/* ---- faults on the heaps' edges and the guard pages ---------------------- */

/* How far below a faulting address a block may end and still be the one
 * the fault is blamed on (issue 12). */
#define EDGE_NEAR ((size_t)1 << 20)

/* What a faulting address is to chunkguard, and the block ending nearest
 * below it (an in-use heap chunk, or a big block), if any. */
typedef struct edge {
    const char *where;          /* what the address is in, for the report  */
    const cg_chunk_t *c;        /* the nearest block below, or NULL        */
    bool big;                   /* c is a big block                        */
} edge_t;

/* The end of the program's part of block c as the core knows it: a heap
 * chunk's usable bytes, a big block's whole mapping. */
static uintptr_t core_end(const cg_chunk_t *c, bool big)
{
    return big ? (uintptr_t)c + cg_csize(c) : (uintptr_t)cg_chunk2mem((cg_chunk_t *)c) +
                                                  cg_heap_usable(c);
}

/* The block below guard page lo (of a metadata mapping, or below a heap):
 * the last block of a heap whose region ends there, or a big block. */
static void block_below(uintptr_t lo, edge_t *e, const cg_call_t *call)
{
    uintptr_t best = 0;
    if (cg_in_heap((void *)(lo - 1))) {
        cg_chunk_t *c = cg_heap_last_block(cg_heap_base((void *)(lo - 1)));
        if (c != NULL && lo - core_end(c, false) <= EDGE_NEAR) {
            e->c = c;
            best = core_end(c, false);
        }
    }
    uintptr_t end;
    const cg_chunk_t *b = cg_big_below(lo, EDGE_NEAR, call, &end);
    if (b != NULL && end > best) {
        e->c = b;
        e->big = true;
    }
}

/* Is a on memory chunkguard keeps inaccessible?  Then fills *e. */
static bool find_edge(const char *a, edge_t *e, const cg_call_t *call)
{
    *e = (edge_t){ NULL, NULL, false };
    if (cg_in_heap(a)) {
        cg_heap_t *h = cg_heap_base(a);
        if (a < cg_heap_end(h))     /* metadata, the guard page, or in use */
            return false;
        e->where = "the unused part of a chunkguard heap, above its top chunk";
        e->c = cg_heap_last_block(h);
        return true;
    }
    uintptr_t lo, hi;
    if (!cg_os_guard_hit(a, &lo, &hi))
        return false;
    if ((uintptr_t)a >= lo + cg_pagesize) {
        /* after the structure: nothing of the program's is below it */
        e->where = "the guard page after one of chunkguard's metadata mappings";
        return true;
    }
    /* a lone registered page is the one below a heap (heap.c) */
    e->where = hi - lo == cg_pagesize && cg_in_heap((void *)hi)
                   ? "the guard page below a chunkguard heap's metadata"
                   : "the guard page before one of chunkguard's metadata mappings";
    block_below(lo, e, call);
    return true;
}

void cg_describe_edge_fault(const void *addr, uintptr_t pc, int write, void *uc)
{
    /* No program call: the faulting code is the frame the report shows. */
    cg_call_t call = cg_call_internal("a memory access");
    call.caller = pc;
    edge_t e;
    const char *a = addr;
    if (!find_edge(a, &e, &call))
        return;
    char detail[400];
    cg_shadow_t *r = NULL;
    uintptr_t user = 0, end = 0;
    if (e.c != NULL) {
        if (cg_mode.instrumented)
            r = cg_shadow_of(e.c, e.big, &call);
        user = r != NULL ? (uintptr_t)cg_shadow_user(r) : (uintptr_t)cg_chunk2mem((cg_chunk_t *)e.c);
        end = r != NULL ? user + r->req : core_end(e.c, e.big);
    }
    bool near = e.c != NULL && (uintptr_t)a >= end && (uintptr_t)a - end <= EDGE_NEAR;
    if (near)
        cg_fmt(detail, sizeof detail, "%zu bytes past the %zu-byte %sblock at %p, in %s",
               (size_t)((uintptr_t)a - end), (size_t)(end - user), e.big ? "mmap'd " : "",
               (void *)user, e.where);
    else
        cg_fmt(detail, sizeof detail, "in %s", e.where);
    cg_access_t acc = cg_dbg_access(pc, write, uc, false);
    cg_dbg_report_at(&call, near ? CG_CK_FAULT_OVERFLOW : CG_CK_FAULT_WILD, a, detail,
                     near ? r : NULL, NULL, 0, &acc);      /* a fault's report: no return */
}
