/*
 * arena_select.c — which arena a thread allocates from.
 *
 * As in glibc: the main thread, and every thread while the process is
 * single-threaded, uses the main arena.  A new thread takes an arena some
 * exited thread left behind, else creates one while there are fewer than
 * arena_max (default 8 x online CPUs), else shares one round-robin.  An
 * arena lives in the header page of its first heap; the main arena is a
 * static object (its heaps are mmap'd like every other).
 */
#include "arena.h"

#include <unistd.h>


#include "options.h"
#include "report.h"
#include "thread.h"

size_t cg_ncpus = 1;

static cg_arena_t *free_list;       /* arenas with no attached thread       */
static cg_arena_t *next_to_reuse;   /* round-robin cursor over all arenas   */

#define ARENA_OFF 256   /* arena struct offset inside its first heap's header page */
static_assert(ARENA_OFF >= sizeof(cg_heap_t), "heap header fits before the arena");
static_assert(ARENA_OFF + sizeof(cg_arena_t) <= CG_HEAP_HDR_BYTES, "arena fits the header page");

/* Give a new arena its first heap and top chunk.  Main arena: heap at init. */
CG_HOT_TEXT bool cg_arena_setup_heap(cg_arena_t *av, cg_heap_t *h)
{
    h->arena = av;
    cg_arena_set_heap(av, h);
    av->top = (cg_chunk_t *)h->data;
    cg_set_head(av->top, (h->size - CG_HEAP_DATA_OFF) | CG_PREV_INUSE);
    cg_start_set(av->top);
    av->system_mem = av->max_system_mem = h->size;
    return true;
}

static cg_arena_t *arena_create(void)
{
    cg_heap_t *h = cg_heap_new(NULL, 64 * 1024);
    if (h == NULL)
        return NULL;
    cg_arena_t *av = (cg_arena_t *)((char *)h + ARENA_OFF);
    cg_arena_init(av, (int)cg_mp.narenas);
    cg_arena_setup_heap(av, h);
    av->attached_threads = 1;
    /* Publish at the end of the list so the fork handlers lock in index order. */
    cg_arena_t *last = &cg_main_arena;
    while (last->next != NULL)
        last = last->next;
    __atomic_store_n(&last->next, av, __ATOMIC_RELEASE);
    CG_STORE(cg_mp.narenas, cg_mp.narenas + 1);
    if (CG_UNLIKELY(cg_opt.verbosity >= 2)) {
        char buf[128];
        size_t n = cg_fmt(buf, sizeof buf, "==%d==chunkguard: new arena %d in heap %p\n",
                          (int)cg_os_getpid(), av->index, (void *)h);
        cg_log_write(buf, n);
    }
    return av;
}

static size_t arena_limit(void)
{
    return cg_mp.arena_max ? cg_mp.arena_max : 8 * cg_ncpus;
}

CG_HOT_TEXT cg_arena_t *cg_arena_pick(const cg_call_t *call)
{
    cg_arena_t *av;
    if (!call->mt) {
        av = &cg_main_arena;
        av->attached_threads++;
        cg_self.arena = av;
        return av;
    }
    cg_lock_at(&cg_list_lock, CG_RET_ADDR, call);
    if (free_list != NULL) {
        av = free_list;
        free_list = av->next_free;
        av->next_free = NULL;
        av->attached_threads++;
    } else if (cg_mp.narenas < arena_limit() && (av = arena_create()) != NULL) {
        /* created and attached */
    } else {
        av = next_to_reuse ? next_to_reuse : &cg_main_arena;
        next_to_reuse = av->next ? av->next : &cg_main_arena;
        av->attached_threads++;
    }
    cg_unlock(&cg_list_lock);
    cg_self.arena = av;
    return av;
}

cg_arena_t *cg_arena_retry(cg_arena_t *failed, const cg_call_t *call)
{
    if (!call->mt)
        return NULL;
    if (failed != &cg_main_arena)
        return &cg_main_arena;
    return cg_arena_next(&cg_main_arena);   /* may be NULL */
}

CG_HOT_TEXT void cg_arena_detach_thread(void)
{
    cg_arena_t *av = cg_self.arena;
    if (av == NULL)
        return;
    bool mt = !CG_SINGLE_THREAD_P;
    cg_tok_t list_tok = cg_lock_if(&cg_list_lock, mt);
    if (av->attached_threads > 0 && --av->attached_threads == 0 && av != &cg_main_arena) {
        av->next_free = free_list;
        free_list = av;
    }
    cg_unlock_if(&cg_list_lock, list_tok);
    cg_self.arena = NULL;
}

/* Fork handlers: every chunkguard lock, in one documented order —
 * arena list lock, then arenas by index (main first), then the big-block
 * registry — taken before fork, released after in the parent, and reset in
 * the child, where only the forking thread is left. */
CG_FORK_PATH void cg_arenas_lock_all(const cg_call_t *call)
{
    cg_lock_for(&cg_list_lock, call);
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av))
        cg_lock_for(&av->lock, call);
}

CG_FORK_PATH void cg_arenas_unlock_all(bool child)
{
    for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
        if (child)
            cg_lock_reinit(&av->lock);
        else
            cg_unlock(&av->lock);
    }
    if (child) {
        /* Only this thread is attached now: every other arena is free. */
        cg_arena_t *mine = cg_self.arena;
        /* Stores only where a word changes: a fork child copies every
         * page it writes, and in a process that never had a second
         * arena these words are already right. */
        CG_CLEAR_IF_SET(free_list);
        for (cg_arena_t *av = &cg_main_arena; av != NULL; av = cg_arena_next(av)) {
            size_t attached = av == mine;
            if (av->attached_threads != attached)
                av->attached_threads = attached;
            if (av != mine && av != &cg_main_arena) {
                av->next_free = free_list;
                free_list = av;
            }
        }
        cg_lock_reinit(&cg_list_lock);
    } else {
        cg_unlock(&cg_list_lock);
    }
}
