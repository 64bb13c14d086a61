/*
 * fast.c — fast mode's table (mode.h): glibc's allocator with its checks,
 * and the tcache whose hits the inline paths serve (fastpath.h).  Contracts
 * are glibc 2.36's (entry/interpose.c).
 */
#include "mode.h"

#include "alloc.h"
#include "fmt.h"
#include "options.h"
#include "vgclient.h"

/* Each operation describes its block to memcheck under valgrind
 * (vgclient.h): the table is the one place every block passes then. */
CG_HOT_TEXT static void *fast_malloc(size_t n, const cg_call_t *call)
{
    return cg_vg_new(cg_malloc_mem_inline(n, call), n, false);
}

CG_HOT_TEXT static void *fast_calloc(size_t bytes, const cg_call_t *call)
{
    return cg_vg_new(cg_calloc_mem_inline(bytes, call), bytes, true);
}

static void *fast_memalign(size_t align, size_t n, const cg_call_t *call)
{
    if (align <= CG_ALIGN)
        return cg_vg_new(cg_malloc_mem(n, call), n, false);
    cg_chunk_t *ch = cg_aligned_chunk(cg_request2size(n), align, call);
    if (ch == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    cg_perturb_alloc(ch);
    return cg_vg_new(cg_chunk2mem(ch), n, false);
}

/* Under valgrind: the requested size memcheck holds for the block at mem,
 * which an in-place resize names and a move copies (vgclient.h).  Out of
 * line, so that off valgrind the usable size is not computed first. */
static CG_COLD size_t vg_held(void *mem, cg_chunk_t *c)
{
    return cg_vg_size(mem, cg_usable_of(c));
}

CG_HOT_TEXT static void *fast_realloc(void *mem, size_t n, const cg_call_t *call)
{
    bool big, fresh;
    cg_tcache_t *tc = call->tc;
    if (mem == NULL)
        return cg_vg_new(cg_malloc_mem(n, call), n, false);
    cg_chunk_t *c = cg_owned_chunk(mem, CG_USE_REALLOC, call, &big);
    if (!big)
        cg_check_in_use(c, cg_csize(c), tc, call);
    if (n == 0) {                    /* glibc 2.36: free and return NULL */
        cg_vg_gone(mem);
        cg_release(c, big, call, tc);
        return NULL;
    }
    if (n > CG_MAX_REQUEST) {
        errno = ENOMEM;
        return NULL;
    }
    size_t nb = cg_request2size(n);
    size_t held = CG_UNLIKELY(cg_vg_on) ? vg_held(mem, c) : 0;
    if (big) {
        /* (never moved by mremap under valgrind: bigblock.c) */
        cg_chunk_t *nc = cg_big_resize(c, nb, call);
        if (nc != NULL) {
            cg_vg_resize(mem, held, n);
            return cg_chunk2mem(nc);
        }
    } else if (cg_arena_resize(cg_arena_of(c), c, nb, call)) {
        cg_vg_resize(mem, held, n);
        return mem;
    }
    /* Not from the tcache (as glibc's _int_realloc): a cached chunk sits
     * between live blocks and could not grow in place next time; the arena
     * prefers free space next to other free space and top. */
    size_t old = cg_vg_on ? held : cg_usable_of(c);
    cg_chunk_t *nc = cg_alloc_chunk(nb, call, NULL, &fresh);
    if (nc == NULL)
        return NULL;                 /* the old block stays as it was */
    /* described before the copy, which then carries memcheck's knowledge
     * of which bytes are defined over with the bytes */
    cg_vg_new(cg_chunk2mem(nc), n, false);
    memcpy(cg_chunk2mem(nc), mem, old < n ? old : n);
    cg_vg_gone(mem);
    cg_release(c, big, call, tc);
    return cg_chunk2mem(nc);
}

/* A sized or aligned operator delete's arguments against in-use chunk c
 * (big: a big block): the size must be one the chunk could have been
 * handed out for, and mem aligned as said (fast mode knows no more: the
 * exact checks are debug mode's).  Reports new-delete-type-mismatch. */
static void check_delete(cg_chunk_t *c, bool big, void *mem, size_t sized, size_t salign,
                         const cg_call_t *call)
{
    /* off at run time: read here, on the slow path a misfit takes, so the
     * inline path keeps its one test (entry/interpose.c, free_inline) */
    if (!cg_opt.new_delete_type_mismatch)
        return;
    if (CG_CHECK_ON(SIZED_FREE) && sized != SIZE_MAX &&
        CG_UNLIKELY(!(big ? cg_big_fits(c, sized) : cg_heap_chunk_fits(c, sized)))) {
        char msg[120];
        cg_fmt(msg, sizeof msg, "%zu given, for a block of %zu usable bytes (a %zu-byte %s)",
               sized, cg_usable_of(c), cg_csize(c), big ? "mapping" : "chunk");
        cg_fail_with(call, CG_CK_NEW_DELETE_SIZE, mem, msg);
    }
    if (CG_CHECK_ON(SIZED_FREE) &&
        CG_UNLIKELY(salign != 0 && ((uintptr_t)mem & (salign - 1)) != 0))
        cg_fail_NEW_DELETE_ALIGN(call, mem);
}

CG_HOT_TEXT static void fast_free(void *mem, size_t sized, size_t salign, const cg_call_t *call)
{
    bool big;
    cg_chunk_t *c = cg_owned_chunk(mem, CG_USE_FREE, call, &big);
    if (sized != SIZE_MAX || salign != 0) {
        if (!big)
            cg_check_in_use(c, cg_csize(c), call->tc, call);
        if (call->family != CG_FAMILY_MALLOC) {
            check_delete(c, big, mem, sized, salign, call);
        } else {
            /* C23: the size malloc was given.  Fast mode knows the chunk
             * only: the size must be one a request of which could have
             * got it (at most its usable bytes, and not so small that the
             * core would have split off a remainder), as for a sized
             * delete. */
            if (CG_CHECK_ON(SIZED_FREE) && CG_UNLIKELY(sized != SIZE_MAX) &&
                CG_UNLIKELY(!(big ? cg_big_fits(c, sized) : cg_heap_chunk_fits(c, sized))))
                cg_fail_SIZED_FREE_SIZE(call, mem);
            if (CG_CHECK_ON(SIZED_FREE) &&
                CG_UNLIKELY(salign != 0 && ((uintptr_t)mem & (salign - 1)) != 0))
                cg_fail_SIZED_FREE_ALIGN(call, mem);
        }
    }
    cg_vg_gone(mem);
    cg_release(c, big, call, call->tc);
}

static size_t fast_usable(void *mem, const cg_call_t *call)
{
    bool big;
    cg_chunk_t *c = cg_owned_chunk(mem, CG_USE_USABLE, call, &big);
    if (big)
        return cg_big_usable(c);
    return cg_inuse(c) ? cg_heap_usable(c) : 0;
}

const cg_mode_t cg_mode_fast = {
    .name = "fast",
    .tcache = true,
    .instrumented = false,
    .malloc = fast_malloc,
    .calloc = fast_calloc,
    .memalign = fast_memalign,
    .realloc = fast_realloc,
    .free = fast_free,
    .usable = fast_usable,
};
