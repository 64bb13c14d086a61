/*
 * init.h — one-time initialisation, thread exit and fork hooks.
 */
#ifndef CG_INIT_H
#define CG_INIT_H

#include "platform.h"

struct cg_tcache;

extern int cg_init_state CG_HIDDEN;     /* 2 once ready */
extern size_t cg_ncpus CG_HIDDEN;

void cg_init_slow(void) CG_HIDDEN;
/* Cheap test first: the library is ready in all but the first calls. */
CG_INLINE void cg_ensure_init(void)
{
    if (CG_UNLIKELY(__atomic_load_n(&cg_init_state, __ATOMIC_ACQUIRE) != 2))
        cg_init_slow();
}
/* Arrange for the calling thread's tcache to be flushed when it exits. */
void cg_thread_register_exit(struct cg_tcache *tc) CG_HIDDEN;

/* Provided by arena_select.c and friends for the fork handlers. */
void cg_arenas_lock_all(void) CG_HIDDEN;
void cg_arenas_unlock_all(bool child) CG_HIDDEN;
struct cg_arena;
struct cg_heap;
bool cg_arena_setup_heap(struct cg_arena *av, struct cg_heap *h) CG_HIDDEN;
void cg_tcache_sum(uint64_t out[5]) CG_HIDDEN;

#endif /* CG_INIT_H */
