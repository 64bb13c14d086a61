/*
 * testhooks.c — entry points for the lock tests (tests/locks), compiled
 * only into test builds (CG_TEST_HOOKS=1).  Exported through the cg_test_*
 * pattern of chunkguard.map; a test finds them with dlsym.  None of them
 * is part of the API: they break the allocator's contracts on purpose.
 */
#include "testhooks.h"

void (*cg_test_hook_fn)(int point, void *arg);

#if CG_SWITCH(CG_TEST_HOOKS)
#include "arena.h"
#include "heap.h"
#include "init.h"
#include "quarantine.h"

#define CG_TEST_API __attribute__((visibility("default")))

void cg_test_set_hook(void (*fn)(int point, void *arg)) CG_TEST_API;
int cg_test_arenas(void) CG_TEST_API;
int cg_test_lock_arena(int index) CG_TEST_API;
int cg_test_unlock_arena(int index) CG_TEST_API;
int cg_test_take_arena_unnoted(int index) CG_TEST_API;
int cg_test_consolidate_unlocked(int index) CG_TEST_API;
void cg_test_quarantine_usage(size_t *bytes, size_t *blocks) CG_TEST_API;
size_t cg_test_quarantine_batch_limit(size_t budget) CG_TEST_API;
size_t cg_test_quarantine_trim_reads(void) CG_TEST_API;
void *cg_test_seed_meta_beside(const void *lo, const void *hi) CG_TEST_API;

/* Install fn as the hook (NULL: none).  Not thread-safe: call it while the
 * hook points cannot run. */
void cg_test_set_hook(void (*fn)(int point, void *arg))
{
    __atomic_store_n(&cg_test_hook_fn, fn, __ATOMIC_RELEASE);
}

static cg_arena_t *arena_at(int index)
{
    cg_ensure_init();
    cg_arena_t *av = &cg_main_arena;
    for (int i = 0; av != NULL && i < index; i++)
        av = cg_arena_next(av);
    return av;
}

/* How many arenas exist. */
int cg_test_arenas(void)
{
    return (int)CG_LOAD(cg_mp.narenas);
}

/* Take (always, as multi-threaded code does) or release arena index's
 * lock; the site recorded is the caller's.  -1: no such arena. */
CG_NOINLINE int cg_test_lock_arena(int index)
{
    cg_arena_t *av = arena_at(index);
    if (av == NULL)
        return -1;
    cg_lock_at(&av->lock, CG_RET_ADDR, NULL);
    return 0;
}

CG_NOINLINE int cg_test_unlock_arena(int index)
{
    cg_arena_t *av = arena_at(index);
    if (av == NULL)
        return -1;
    cg_unlock(&av->lock);
    return 0;
}

/* Take arena index's lock word only, as a thread stopped between
 * cg_lock_raw's compare-and-swap and its note of the holder (owner, site,
 * acquisition count) leaves it: held, with no holder named.  The lock
 * stays so (no unlock undoes it).  -1: no such arena, 1: it was held. */
int cg_test_take_arena_unnoted(int index)
{
    cg_arena_t *av = arena_at(index);
    if (av == NULL)
        return -1;
    uint32_t zero = 0;
    return __atomic_compare_exchange_n(&av->lock.state, &zero, 1, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED) ? 0 : 1;
}

/* Break a "caller holds the lock" contract: consolidate arena index as a
 * multi-threaded caller would, without its lock.  The CG_LOCK_ASSERTS
 * check must stop it. */
int cg_test_consolidate_unlocked(int index)
{
    cg_arena_t *av = arena_at(index);
    if (av == NULL)
        return -1;
    const cg_call_t call = { .caller = CG_RET_ADDR, .op = "cg_test_consolidate_unlocked",
                             .tc = NULL, .mt = true };
    cg_arena_consolidate(av, &call);
    return 0;
}
/* What debug mode's quarantine holds now (the FIFO and every thread's
 * batch, bytes of chunks and blocks), and the most one thread's batch holds
 * with a budget of budget bytes: for the budget test (tests/debug/
 * threads.c).  No lock: the counts may be a moment old. */
void cg_test_quarantine_usage(size_t *bytes, size_t *blocks)
{
    cg_quarantine_usage(bytes, blocks);
}

size_t cg_test_quarantine_batch_limit(size_t budget)
{
    return cg_quarantine_batch_limit(budget);
}

/* How many records the FIFO's trim has read so far (quarantine.c's
 * cg_quarantine_trim_reads): the test of whole-batch trimming. */
size_t cg_test_quarantine_trim_reads(void)
{
    return CG_LOAD(cg_quarantine_trim_reads);
}

/* The seeded bug of the layout audit (tests/edges/edges.c "audit seed"):
 * a page of metadata mapped directly beside the object [lo, hi) (a heap
 * with its guard page, or a big block's mapping), as a structure made
 * without the metadata body or guard pages might land: at hi, or, when
 * that page is taken, ending at lo.  Its address, or NULL when both are
 * taken.  A word is written into it so that it is resident, like a
 * structure in use. */
void *cg_test_seed_meta_beside(const void *lo, const void *hi)
{
    char *m = cg_os_test_map_at((void *)hi, cg_pagesize);
    if (m == NULL && (uintptr_t)lo >= cg_pagesize)
        m = cg_os_test_map_at((char *)lo - cg_pagesize, cg_pagesize);
    if (m != NULL)
        *(uintptr_t *)m = (uintptr_t)lo;
    return m;
}
#endif
