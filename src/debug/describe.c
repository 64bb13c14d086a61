/*
 * describe.c — cg_describe: what chunkguard knows of an address, in words.
 */
#include "bigblock.h"
#include "debug.h"
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

/* Debug mode: from the block's shadow record. */
static size_t describe_record(char *b, size_t cap, const char *a, const cg_shadow_t *r)
{
    const char *u = cg_shadow_user(r);
    bool live = cg_shadow_seen_live(r->state);
    const char *state = live ? "live" : r->guarded ? "freed (its pages sealed)"
                                                   : "freed (in the quarantine)";
    size_t n;
    if (a < u)
        n = cg_fmt(b, cap, "%p is %zu bytes before", (const void *)a, (size_t)(u - a));
    else if (a >= u + r->req)
        n = cg_fmt(b, cap, "%p is %zu bytes past the end of", (const void *)a,
                   (size_t)(a - u - r->req));
    else
        n = cg_fmt(b, cap, "%p is %zu bytes inside", (const void *)a, (size_t)(a - u));
    n += cg_fmt(b + n, cap - n, " a %zu-byte region [%p, %p), %s, from %s()%s\n", r->req,
                (const void *)u, (const void *)(u + r->req), state, cg_kind_name(r->kind),
                r->guarded == CG_GUARDED_SLOT ? ", in a guard slot (sampled)"
                : r->guarded ? ", on guard pages of its own" : "");
    if (!live)
        n += stack_lines(b + n, cap - n, "freed", r->free_tid, r->free_stack);
    return n + stack_lines(b + n, cap - n, "allocated", r->alloc_tid, r->alloc_stack);
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

size_t cg_describe_impl(const void *addr, char *buf, size_t cap, const cg_call_t *call)
{
    if (cap == 0)
        return 0;
    buf[0] = 0;
    const char *a = addr;
    /* sampled blocks have records in every mode */
    if (cg_mode.instrumented || cg_shadow_in_pages(a)) {
        cg_shadow_t *r = cg_shadow_find(a, call);
        if (r != NULL)
            return describe_record(buf, cap, a, r);
    }
    return describe_core(buf, cap, a, call);
}
