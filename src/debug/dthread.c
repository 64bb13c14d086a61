/*
 * dthread.c — debug mode's per-thread blocks (see dthread.h).
 */
#include "dthread.h"
#include "lock.h"

/* cg_self.dbg of a thread that has exited. */
#define GONE ((struct cg_dthread *)1)

/* The registry's lock: a leaf, taken with cg_lock_raw (no stack for its
 * site, not in the lock-order graph), only at a thread's first use and
 * exit and by fork; before the blocks' locks (quarantine.c). */
static cg_lock_t reg_lock = CG_LOCK_INIT(CG_LK_DTHREADS);
static cg_dthread_t *reg_all, *reg_spare;
static char *carve;                  /* the rest of the last page mapped */
static size_t carve_left;

CG_INLINE cg_tok_t reg_take(bool mt)
{
    if (mt)
        cg_lock_raw(&reg_lock, CG_RET_ADDR, NULL);
    return (cg_tok_t){ mt };
}

static CG_NOINLINE cg_dthread_t *make(bool mt)
{
    cg_tok_t reg_tok = reg_take(mt);
    cg_dthread_t *t = reg_spare;
    if (t != NULL) {
        reg_spare = t->spare;
    } else {
        if (carve_left < sizeof *t) {
            carve = cg_os_map_meta(cg_pagesize);
            carve_left = carve != NULL ? cg_pagesize : 0;
        }
        if (carve_left >= sizeof *t) {
            t = (cg_dthread_t *)carve;
            carve += sizeof *t;
            carve_left -= sizeof *t;
            *t = (cg_dthread_t){ .lock = CG_LOCK_INIT(CG_LK_DTHREAD), .all = reg_all };
            __atomic_store_n(&reg_all, t, __ATOMIC_RELEASE);
        }
    }
    cg_unlock_if(&reg_lock, reg_tok);
    cg_self.dbg = t;
    return t;
}

cg_dthread_t *cg_dthread_self(bool mt)
{
    cg_dthread_t *t = cg_self.dbg;
    if (CG_LIKELY(t != NULL && t != GONE))
        return t;
    return t == GONE ? NULL : make(mt);
}

CG_FORK_PATH cg_dthread_t *cg_dthread_peek(void)
{
    cg_dthread_t *t = cg_self.dbg;
    return t != GONE ? t : NULL;
}

void cg_dthread_retire(bool mt)
{
    cg_dthread_t *t = cg_self.dbg;
    cg_self.dbg = GONE;
    if (t == NULL || t == GONE)
        return;
    cg_tok_t reg_tok = reg_take(mt);
    t->spare = reg_spare;
    reg_spare = t;
    cg_unlock_if(&reg_lock, reg_tok);
}

CG_FORK_PATH cg_dthread_t *cg_dthread_first(void)
{
    return __atomic_load_n(&reg_all, __ATOMIC_ACQUIRE);
}

CG_FORK_PATH void cg_dthread_lock_all(const cg_call_t *call)
{
    cg_lock_raw(&reg_lock, call != NULL && call->caller ? call->caller : CG_RET_ADDR, call);
}

CG_FORK_PATH void cg_dthread_unlock_all(bool child)
{
    if (child) {               /* single-threaded, the lock still held */
        cg_dthread_t *self = cg_dthread_peek();
        CG_CLEAR_IF_SET(reg_spare);     /* no store when none: a page copied */
        for (cg_dthread_t *t = reg_all; t != NULL; t = t->all)
            if (t != self) {
                t->spare = reg_spare;
                reg_spare = t;
            }
        cg_lock_reinit(&reg_lock);
    } else {
        cg_unlock(&reg_lock);
    }
}
