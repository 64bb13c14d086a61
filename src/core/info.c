/*
 * info.c — mallinfo2, malloc_trim, malloc_stats, malloc_info and
 * cg_get_stats: introspection over the arenas, never on a hot path.  The
 * caller (entry/) has initialised the core.
 *
 * Statistics are gathered under each arena's lock and printed after it is
 * released, so printing (stdio may allocate) never runs under our locks.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

#include "arena.h"
#include "bigblock.h"
#include "info.h"
#include "checks.h"
#include "mode.h"
#include "tcache.h"

typedef struct arena_info {
    size_t system, fast_count, fast_bytes, free_count, free_bytes, top, heaps, max_system;
} arena_info_t;

static void gather(cg_arena_t *av, arena_info_t *ai, const cg_call_t *call)
{
    *ai = (arena_info_t){0};
    cg_tok_t av_tok = cg_lock_if_call(&av->lock, call);
    for (size_t i = 0; i < CG_NFASTBINS; i++) {
        size_t guard = 0;
        for (cg_chunk_t *p = __atomic_load_n(&av->fastbins[i], __ATOMIC_ACQUIRE);
             p != NULL && guard++ < (1u << 24);
             p = cg_reveal(&p->fd, p->fd)) {
            if (!cg_heap_contains(p))       /* its header and link readable */
                break;
            ai->fast_count++;
            ai->fast_bytes += cg_csize(p);
        }
    }
    for (size_t i = 1; i < CG_NBINS; i++) {
        cg_chunk_t *b = cg_bin_at(av, i);
        size_t guard = 0;
        for (cg_chunk_t *c = b->fd; c != b && guard++ < (1u << 24); c = c->fd) {
            /* statistics never fault: an overwritten link ends the walk
             * (found by fuzzing; with the bin-link checks compiled out,
             * fuzz/regress/corrupt/mallinfo-follows-bad-link faults here) */
            if (CG_CHECK_ON(UNLINK) &&
                (!cg_aligned_ok(c) || !cg_heap_readable(c, sizeof *c)))
                break;
            ai->free_count++;
            ai->free_bytes += cg_csize(c);
        }
    }
    ai->top = av->top ? cg_csize(av->top) : 0;
    /* The heaps' chunk space: each heap's header, start bitmap, shadow map
     * and guard page (CG_HEAP_DATA_OFF) are chunkguard's out-of-band
     * metadata, neither in use by the program nor free for it.  (glibc's
     * arena counts its small heap header; ours is 6 MiB of address
     * space, and a new arena made mallinfo's "in use" jump by it.) */
    for (cg_heap_t *h = av->heap; h != NULL; h = h->prev) {
        ai->heaps++;
        ai->system += h->size - CG_HEAP_DATA_OFF;
    }
    ai->max_system = av->max_system_mem - ai->heaps * CG_HEAP_DATA_OFF;
    cg_unlock_if(&av->lock, av_tok);
}

struct mallinfo2 cg_mallinfo2_impl(const cg_call_t *call)
{
    struct mallinfo2 m = {0};
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
        arena_info_t ai;
        gather(av, &ai, call);
        size_t avail = ai.top + ai.fast_bytes + ai.free_bytes;
        m.arena += ai.system;
        m.ordblks += ai.free_count + 1;
        m.smblks += ai.fast_count;
        m.fsmblks += ai.fast_bytes;
        m.fordblks += avail;
        m.uordblks += ai.system - avail;
        if (av == &cg_main_arena)
            m.keepcost = ai.top;
    }
    m.hblks = CG_LOAD(cg_mp.n_mmaps);
    m.hblkhd = CG_LOAD(cg_mp.mmapped_mem);
    /* Blocks the program freed that the mode holds (debug mode's
     * quarantine) are free to the program, as they would be in glibc:
     * heap chunks move to fordblks, big blocks leave hblks/hblkhd (glibc
     * would have unmapped them). */
    if (cg_mode.held != NULL) {
        size_t heap, big, nbig;
        cg_mode.held(&heap, &big, &nbig);
        heap = heap < m.uordblks ? heap : m.uordblks;
        m.uordblks -= heap;
        m.fordblks += heap;
        m.hblkhd -= big < m.hblkhd ? big : m.hblkhd;
        m.hblks -= nbig < m.hblks ? nbig : m.hblks;
    }
    return m;
}

int cg_malloc_trim_impl(size_t pad, const cg_call_t *call)
{
    int released = 0;
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
        cg_tok_t av_tok = cg_lock_if_call(&av->lock, call);
        cg_arena_consolidate(av, call);
        released |= cg_arena_trim(av, pad, true, call);
        cg_unlock_if(&av->lock, av_tok);
    }
    return released;
}

static void say(const char *fmt, size_t a)
{
    char buf[128];
    size_t n = cg_fmt(buf, sizeof buf, fmt, a);
    cg_os_write_all(2, buf, n);
}

void cg_malloc_stats_impl(const cg_call_t *call)
{
    size_t sys = 0, used = 0;
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
        arena_info_t ai;
        gather(av, &ai, call);
        size_t inuse = ai.system - ai.top - ai.fast_bytes - ai.free_bytes;
        say("Arena %zu:\n", (size_t)av->index);
        say("system bytes     = %zu\n", ai.system);
        say("in use bytes     = %zu\n", inuse);
        sys += ai.system;
        used += inuse;
    }
    say("Total (incl. mmap):\nsystem bytes     = %zu\n", sys + CG_LOAD(cg_mp.mmapped_mem));
    say("in use bytes     = %zu\n", used + CG_LOAD(cg_mp.mmapped_mem));
    say("max mmap regions = %zu\n", CG_LOAD(cg_mp.max_n_mmaps));
    say("max mmap bytes   = %zu\n", CG_LOAD(cg_mp.max_mmapped_mem));
}

/* One formatted piece of malloc_info's XML to the program's stream, with
 * no lock held: stdio may allocate its buffer, a callout (thread.h). */
static void say_to(FILE *fp, const char *buf, size_t n)
{
    cg_callout_t co = cg_callout_begin();
    cg_os_fwrite(fp, buf, n);
    cg_callout_end(co);
}

int cg_malloc_info_impl(int options, FILE *fp, const cg_call_t *call)
{
    if (options != 0)
        return EINVAL;            /* glibc 2.36 returns the code, errno untouched */
    size_t tf = 0, tfb = 0, tr = 0, trb = 0, sys = 0, maxsys = 0;
    char buf[512];
    say_to(fp, buf, cg_fmt(buf, sizeof buf, "<malloc version=\"1\">\n"));
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
        arena_info_t ai;
        gather(av, &ai, call);   /* lock released before any stdio call */
        say_to(fp, buf, cg_fmt(buf, sizeof buf, "<heap nr=\"%d\">\n"
                    "<total type=\"fast\" count=\"%zu\" size=\"%zu\"/>\n"
                    "<total type=\"rest\" count=\"%zu\" size=\"%zu\"/>\n"
                    "<system type=\"current\" size=\"%zu\"/>\n"
                    "<system type=\"max\" size=\"%zu\"/>\n"
                    "<aspace type=\"total\" size=\"%zu\"/>\n"
                    "</heap>\n",
                av->index, ai.fast_count, ai.fast_bytes, ai.free_count + 1,
                ai.free_bytes + ai.top, ai.system, ai.max_system, ai.heaps * CG_HEAP_MAX));
        tf += ai.fast_count;
        tfb += ai.fast_bytes;
        tr += ai.free_count + 1;
        trb += ai.free_bytes + ai.top;
        sys += ai.system;
        maxsys += ai.max_system;
    }
    say_to(fp, buf, cg_fmt(buf, sizeof buf, "<total type=\"fast\" count=\"%zu\" size=\"%zu\"/>\n"
                "<total type=\"rest\" count=\"%zu\" size=\"%zu\"/>\n"
                "<total type=\"mmap\" count=\"%zu\" size=\"%zu\"/>\n"
                "<system type=\"current\" size=\"%zu\"/>\n"
                "<system type=\"max\" size=\"%zu\"/>\n"
                "</malloc>\n",
            tf, tfb, tr, trb, (size_t)CG_LOAD(cg_mp.n_mmaps), (size_t)CG_LOAD(cg_mp.mmapped_mem), sys, maxsys));
    return 0;
}

void cg_get_stats_impl(cg_stats_t *out, const cg_call_t *call)
{
    uint64_t c[5];
    cg_tcache_sum(c, call);
    out->mallocs = c[0];
    out->frees = c[1];
    out->callocs = c[2];
    out->reallocs = c[3];
    out->memaligns = c[4];
    out->mmapped_chunks = CG_LOAD(cg_mp.n_mmaps);
    out->arenas = CG_LOAD(cg_mp.narenas);
    out->heaps = 0;
    if (CG_LOAD(cg_mp.narenas) == 0)     /* before init: no arena yet */
        return;
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
        cg_tok_t av_tok = cg_lock_if_call(&av->lock, call);
        for (cg_heap_t *h = av->heap; h != NULL; h = h->prev)
            out->heaps++;
        cg_unlock_if(&av->lock, av_tok);
    }
}
