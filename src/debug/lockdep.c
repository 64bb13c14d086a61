/*
 * lockdep.c — the lock-order graph over chunkguard's own lock instances
 * (debug mode), and the reports about chunkguard's locks in every mode
 * (deadlock, lock-wait-timeout, lock-order-inversion): cg_lockdep_init
 * installs them as the lock's hooks (base/lock.h, cg_lock_hooks), since
 * the lock itself cannot reach the report and stack layers above it.
 *
 * Each lock instance is a node (lock.h, CG_LK_*).  When a thread takes lock
 * B while holding lock A, the edge A -> B is recorded once, with where each
 * was taken.  An edge that would close a cycle — B already reaches A, so
 * two threads could each hold one and wait for the other — is reported
 * (`lock-order-inversion`) once, with both acquisition sites of this edge
 * and those of the earlier edge it contradicts.  Arenas form a class with a
 * declared order, by index: the edges "arena i before arena j" for i < j
 * are implied, so the fork handler taking every arena in index order is
 * legal and any thread taking a lower-numbered arena while it holds a
 * higher one is an inversion at once.  The idea is the Linux kernel's
 * lockdep (Ingo Molnar, 2006), here over instances rather than classes.
 *
 * Cost: nothing unless debug mode is on (one predictable branch per
 * multi-threaded acquisition and release).  In debug mode, each thread
 * keeps the set of nodes it holds in its thread state (set here, cleared
 * by cg_unlock), and each acquisition tests one bit per lock held; the
 * graph's own spin lock is taken only for an edge not seen before (a few
 * dozen in a process's life).  The graph is 64 x 64 bits plus 64 KiB of edge sites in .lbss,
 * untouched until used.
 */
#include "lockdep.h"

#include <unistd.h>

#include "options.h"
#include "render.h"
#include "stack.h"
#include "stackdepot.h"
#include "stackmemo.h"
#include "thread.h"

static uint64_t adj[CG_LK_NODES];        /* adj[a] bit b: a held when b taken  */
static uint64_t reported[CG_LK_NODES];   /* edges already reported             */
static const cg_lock_t *lock_of[CG_LK_NODES]; /* the instance behind each node */
typedef struct edge {
    uintptr_t held_site;                 /* where the held lock was taken      */
    uintptr_t site;                      /* where the second lock was taken    */
    uint32_t tid;                        /* by which thread                    */
} edge_t;
static CG_BIG_BSS edge_t edges[CG_LK_NODES][CG_LK_NODES];
static uint32_t graph_lock CG_FORK_DATA;              /* a spin lock holding its owner's tid,
                                          * not a node                         */

#define BIT(n) ((uint64_t)1 << (n))

/* The nodes whose lock this thread holds: kept in its thread state, set
 * when lockdep sees an acquisition and cleared by cg_unlock — a thread
 * never reads the lock words other threads are writing. */
static uint64_t held_by_me(void)
{
    return cg_self.lk_held;
}

/* Arena nodes above a: the declared order's implied edges. */
static uint64_t implied(unsigned a)
{
    if (a < CG_LK_ARENA0 || a >= CG_LK_MAX - 1)
        return 0;
    return (BIT(CG_LK_MAX) - 1) & ~(BIT(a + 1) - 1);
}

/* False when this thread holds it already: a signal handler's call (a
 * report) interrupted an update here; the edge is left out, not waited for. */
static bool graph_take(void)
{
    uint32_t me = cg_lock_me(), free_ = 0;
    if (__atomic_load_n(&graph_lock, __ATOMIC_RELAXED) == me)
        return false;
    while (!__atomic_compare_exchange_n(&graph_lock, &free_, me, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        free_ = 0;
        CG_CPU_RELAX();
    }
    return true;
}

static void graph_drop(void)
{
    __atomic_store_n(&graph_lock, 0, __ATOMIC_RELEASE);
}

/* Does from reach to along recorded and implied edges?  Graph lock held. */
static bool reaches(unsigned from, unsigned to)
{
    uint64_t seen = 0, frontier = BIT(from);
    while (frontier) {
        unsigned n = (unsigned)__builtin_ctzll(frontier);
        frontier &= frontier - 1;
        if (seen & BIT(n))
            continue;
        seen |= BIT(n);
        uint64_t next = adj[n] | implied(n);
        if (next & BIT(to))
            return true;
        frontier |= next & ~seen;
    }
    return false;
}

static void name_node(unsigned n, char *buf, size_t cap)
{
    cg_lock_t fake = CG_LOCK_INIT(n);
    cg_lock_name(lock_of[n] ? lock_of[n] : &fake, buf, cap);
}

/* b is being taken while a is held; b already reaches a. */
size_t cg_lock_site_stack(uintptr_t site, uintptr_t one[2], const uintptr_t **pcs)
{
    if (site & CG_SITE_STACK) {
        size_t n = cg_stack_get((uint32_t)(site & ~CG_SITE_STACK), pcs);
        if (n > 0)
            return n;
        site = 0;
    }
    *pcs = one;
    one[0] = site;
    return site != 0;
}

/* The calling thread's site: as above, and for a lock taken for a call
 * the program's call site after a lone address. */
size_t cg_lock_site_here(uintptr_t site, const cg_call_t *call, uintptr_t one[2],
                         const uintptr_t **pcs)
{
    size_t n = cg_lock_site_stack(site, one, pcs);
    /* (The site is the call site itself when the API entry tail-called
     * the function that took the lock: no second frame then.) */
    if (*pcs == one && call != NULL && call->caller != 0 && (n == 0 || one[0] != call->caller))
        one[n++] = call->caller;
    return n;
}

/* The function a lock report names: the call's, or chunkguard's own. */
static const char *lock_op(const cg_call_t *call)
{
    return call != NULL && call->op != NULL ? call->op : "chunkguard";
}

CG_REALIGN void cg_lock_report(cg_check_t id, const cg_lock_t *l, uintptr_t site, const cg_call_t *call,
                    const char *detail, uint32_t holder, uintptr_t held_site,
                    const char *held_title)
{
    char msg[512];
    uintptr_t now1[2], held1[2];
    const uintptr_t *now_pcs, *held_pcs;
    size_t now_n = cg_lock_site_here(site, call, now1, &now_pcs);
    size_t held_n = cg_lock_site_stack(held_site, held1, &held_pcs);
    char name[48];
    cg_lock_name(l, name, sizeof name);
    cg_rdata_t d = {
        .addr = l, .op = lock_op(call), .tid = cg_self.tid ? (int)cg_self.tid - 1 : -1,
        .stacks = { { NULL, -1, now_pcs, now_n, NULL },
                    { held_title, -1, held_pcs, held_n, "held" } },
        /* no holder known and no site: no second stack */
        .nstacks = holder == 0 && held_n == 0 ? 1 : 2, .lock = name,
        .holder_tid = (long)holder,
    };
    cg_check_fill(&d, id, detail, msg, sizeof msg);
    cg_report_emit(&d, false);
    cg_report_exit();
}

CG_REALIGN void cg_lock_report_fork_inside(const cg_call_t *call, uintptr_t site)
{
    char detail[128], msg[768];
    uintptr_t one[2];
    const uintptr_t *pcs;
    size_t n = cg_lock_site_here(site, call, one, &pcs);
    cg_fmt(detail, sizeof detail, "it (tid %d) was inside chunkguard when its fork's prepare "
           "handler ran; the fork is not made", (int)cg_lock_me());
    cg_rdata_t d = {
        .addr = NULL, .op = lock_op(call), .tid = cg_self.tid ? (int)cg_self.tid - 1 : -1,
        .stacks = { { NULL, -1, pcs, n, NULL } }, .nstacks = 1,
    };
    cg_check_fill(&d, CG_CK_LOCK_FORK_INSIDE, detail, msg, sizeof msg);
    cg_report_emit(&d, false);
    cg_report_exit();
}

static void report_inversion(cg_lock_t *l, const cg_call_t *call, unsigned a, unsigned b,
                             uintptr_t a_site, bool direct, edge_t earlier) CG_COLD CG_NOINLINE;
static void report_inversion(cg_lock_t *l, const cg_call_t *call, unsigned a, unsigned b,
                             uintptr_t a_site, bool direct, edge_t earlier)
{
    char an[48], bn[48], detail[384], msg[768];
    name_node(a, an, sizeof an);
    name_node(b, bn, sizeof bn);
    size_t n = cg_fmt(detail, sizeof detail, "it (tid %d) takes the %s while it holds the %s, "
                      "but ", (int)cg_lock_me(), bn, an);
    if (direct)
        cg_fmt(detail + n, sizeof detail - n, "thread tid %d earlier took the %s while holding "
               "the %s", (int)earlier.tid, an, bn);
    else if (a >= CG_LK_ARENA0 && a < CG_LK_MAX && b >= CG_LK_ARENA0 && b < CG_LK_MAX)
        cg_fmt(detail + n, sizeof detail - n, "arenas are taken in index order (the declared "
               "order the fork handler follows)");
    else
        cg_fmt(detail + n, sizeof detail - n, "a chain of earlier acquisitions takes them the "
               "other way round (the stacks below are its first step)");
    uintptr_t one[3][2];
    const uintptr_t *pcs[3];
    size_t cnt[3];
    cnt[0] = cg_lock_site_here(CG_LOAD(l->site), call, one[0], &pcs[0]);
    cnt[1] = cg_lock_site_here(a_site, call, one[1], &pcs[1]);
    cnt[2] = cg_lock_site_stack(earlier.site, one[2], &pcs[2]);
    /* The stacks' titles on this thread's stack: two threads may report
     * at once, and each formats them before cg_report_emit takes the
     * report lock (static buffers gave one report the other's names). */
    char t1[96], t2[128];
    cg_fmt(t1, sizeof t1, "The %s was taken by this thread", an);
    cg_fmt(t2, sizeof t2, "Earlier the %s was taken while the %s was held", an, bn);
    cg_rdata_t d = {
        .addr = l, .op = lock_op(call), .tid = cg_self.tid ? (int)cg_self.tid - 1 : -1,
        .stacks = { { NULL, -1, pcs[0], cnt[0], NULL },
                    { t1, -1, pcs[1], cnt[1], "held" },
                    { t2, -1, pcs[2], cnt[2], "earlier" } },
        .nstacks = direct ? 3 : 2, .lock = bn, .holder_tid = (long)cg_lock_me(),
    };
    cg_check_fill(&d, CG_CK_LOCK_ORDER, detail, msg, sizeof msg);
    cg_report_emit(&d, true);
}

void cg_lockdep_acquire(cg_lock_t *l, const cg_call_t *call)
{
    unsigned b = l->node;
    if (b == CG_LK_NONE || b >= CG_LK_NODES)
        return;
    if (CG_LOAD(lock_of[b]) == NULL)
        CG_STORE(lock_of[b], l);
    uint64_t held = held_by_me() & ~BIT(b);
    cg_self.lk_held |= BIT(b);
    for (uint64_t h = held; h; h &= h - 1) {
        unsigned a = (unsigned)__builtin_ctzll(h);
        if ((CG_LOAD(adj[a]) | implied(a)) & BIT(b))
            continue;                        /* known, or the declared order */
        const cg_lock_t *la = CG_LOAD(lock_of[a]);
        uintptr_t a_site = la ? CG_LOAD(la->site) : 0;
        bool report = false, direct = false;
        edge_t earlier = { 0, 0, 0 };
        if (!graph_take())
            continue;
        if (!(adj[a] & BIT(b))) {
            if (!reaches(b, a)) {
                edges[a][b] = (edge_t){ a_site, CG_LOAD(l->site), cg_lock_me() };
                __atomic_or_fetch(&adj[a], BIT(b), __ATOMIC_RELAXED);
            } else if (!(reported[a] & BIT(b))) {
                reported[a] |= BIT(b);
                report = true;
                direct = (adj[b] & BIT(a)) != 0;
                if (direct)
                    earlier = edges[b][a];
            }
        }
        graph_drop();
        if (report)
            report_inversion(l, call, a, b, a_site, direct, earlier);
    }
}

/* A lock taken while this thread holds others: no unwinding then (it could
 * wait for the loader's lock while a thread in dlopen waits for ours), but
 * the outermost held lock's stack, which was captured when it was taken,
 * is this call's stack too: the site is that stack under the new lock's own
 * return address.  Only the address when no held lock has a stack. */
static uintptr_t nested_site(uint64_t held, uintptr_t ret)
{
    if (held & BIT(CG_LK_DEPOT))
        return ret;                          /* a put would re-take it */
    for (; held; held &= held - 1) {
        const cg_lock_t *h = CG_LOAD(lock_of[__builtin_ctzll(held)]);
        uintptr_t s = h ? CG_LOAD(h->site) : 0;
        const uintptr_t *outer;
        size_t n;
        if (!(s & CG_SITE_STACK) || (n = cg_stack_get((uint32_t)(s & ~CG_SITE_STACK), &outer)) == 0)
            continue;
        uintptr_t pcs[CG_STACK_MAX];
        pcs[0] = ret;
        if (n > CG_STACK_MAX - 1)
            n = CG_STACK_MAX - 1;
        for (size_t i = 0; i < n; i++)
            pcs[i + 1] = outer[i];
        uint32_t id = cg_stack_put(pcs, n + 1);
        return id ? (CG_SITE_STACK | id) : ret;
    }
    return ret;
}

/* Debug mode's acquisition site: a stack in the depot — captured for the
 * first lock a thread takes, derived from it for the locks it then nests
 * (nested_site). */
static CG_NOINLINE uintptr_t site_stack(uintptr_t ret, const cg_call_t *call)
{
    /* No unwinding inside the unwinder, nor where a caller said so (the
     * fork handlers, entry/init.c): the site is ret, which such a caller
     * makes the program's call site.  Not a held lock's stack under it
     * either: a lock this thread took in an earlier call (a signal
     * handler's fork inside malloc) is no part of this call's stack. */
    if (cg_stack_mode() != CG_STACK_LIBUNWIND || cg_self.in_capture)
        return ret;
    uint64_t held = held_by_me();
    if (held != 0)
        return nested_site(held, ret);
    uintptr_t pcs[12];
    /* the same acquisition from an unchanged stack: the memo (stackmemo.h) */
    cg_memo_key_t key = { ret, (uintptr_t)pcs, CG_RET_ADDR, cg_self.tid };
    uint32_t id = cg_stack_memo_find(&key);
    if (id != 0)
        return CG_SITE_STACK | id;
    cg_callout_t co = cg_callout_begin();   /* a first capture may malloc */
    size_t n = cg_stack_capture(pcs, 12, 1);   /* pcs[0]: the acquisition */
    cg_callout_end(co);
    if (n == 0)
        return ret;
    id = cg_stack_put(pcs, n);
    if (id != 0) {
        /* the program's first frame */
        size_t prog = cg_stack_caller_index(pcs, n, call != NULL ? call->caller : 0);
        if (prog == n)
            prog = 0;              /* not inside a call: check every frame's */
        co = cg_callout_begin();
        cg_stack_memo_note(&key, pcs, n, prog, id);
        cg_callout_end(co);
    }
    return id ? (CG_SITE_STACK | id) : ret;
}

/* cg_lock_at in debug mode: the site first (a stack, for a thread's
 * outermost lock below the depot's, whose own lock a capture takes), then
 * the lock, then the graph. */
static void lock_debug(cg_lock_t *l, uintptr_t site, const cg_call_t *call)
{
    if (l->node < CG_LK_DEPOT)
        site = site_stack(site, call);
    cg_lock_raw(l, site, call);
    cg_lockdep_acquire(l, call);
}

/* cg_trylock's note to the graph: no call (only the symbolizer tries). */
static void trylock_debug(cg_lock_t *l)
{
    cg_lockdep_acquire(l, NULL);
}

static void lock_report_hook(cg_lock_event_t ev, const cg_lock_t *l, uintptr_t site,
                             const cg_call_t *call, const char *detail, uint32_t holder,
                             uintptr_t held_site, const char *held_title)
    CG_COLD __attribute__((noreturn));
static void lock_report_hook(cg_lock_event_t ev, const cg_lock_t *l, uintptr_t site,
                             const cg_call_t *call, const char *detail, uint32_t holder,
                             uintptr_t held_site, const char *held_title)
{
    cg_lock_report(ev == CG_LOCK_EV_DEADLOCK ? CG_CK_LOCK_RELOCK : CG_CK_LOCK_TIMEOUT, l, site,
                   call, detail, holder, held_site, held_title);
}

CG_STARTUP void cg_lockdep_init(bool debug)
{
    cg_lock_hooks = (cg_lock_hooks_t){ .debug_lock = lock_debug,
                                       .debug_acquired = trylock_debug,
                                       .report = lock_report_hook };
    if (debug)
        cg_lockdep_on = true;
}

CG_FORK_PATH void cg_lockdep_lock_all(void)
{
    if (cg_lockdep_on)
        (void)graph_take();
}

CG_FORK_PATH void cg_lockdep_unlock_all(bool child)
{
    if (child) {
        cg_self.ktid = 0;     /* the child's thread has a new tid */
        CG_CLEAR_IF_SET(graph_lock);
    } else if (cg_lockdep_on) {
        graph_drop();
    }
}
