/*
 * lock.c — the contended side of cg_lock_t (lock.h): spin, then sleep on
 * the futex; a thread re-taking a lock it holds gets a `deadlock` report,
 * a wait longer than deadlock_timeout_ms a `lock-wait-timeout` report
 * naming the holder.  Both are fatal: the lock may never come free.
 * Nothing here allocates.
 */
#include "lock.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fmt.h"
#include "options.h"
#include "thread.h"

bool cg_lockdep_on;
cg_lock_hooks_t cg_lock_hooks;

CG_FORK_PATH uint32_t cg_lock_tid_slow(void)
{
    cg_self.ktid = cg_os_gettid();
    return cg_self.ktid;
}

static const char *const node_names[CG_LK_NODES] = {
    [CG_LK_NONE] = "a lock", [CG_LK_LIST] = "arena list", [CG_LK_BIG] = "big-block registry",
    [CG_LK_SHADOW] = "shadow records", [CG_LK_DTHREADS] = "debug thread registry",
    [CG_LK_DTHREAD] = "debug thread block", [CG_LK_QUARANTINE] = "quarantine",
    [CG_LK_GUARD] = "guard ranges",
    [CG_LK_DEPOT] = "stack depot", [CG_LK_SYMCACHE] = "symbolizer cache",
    [CG_LK_REPORT] = "report lock",
};

size_t cg_lock_name(const cg_lock_t *l, char *buf, size_t cap)
{
    unsigned node = l->node;
    if (node >= CG_LK_ARENA0 && node < CG_LK_MAX)
        return cg_fmt(buf, cap, "arena %d lock", (int)(node - CG_LK_ARENA0));
    return cg_fmt(buf, cap, "%s", node < CG_LK_NODES ? node_names[node] : "a lock");
}

/* The report about a lock, through the hook once init has set it (its
 * words are the catalogue's, src/report/checks.def: this layer gives the
 * detail only). */
static void lock_report(cg_lock_event_t ev, const cg_lock_t *l, uintptr_t site,
                        const cg_call_t *call, const char *detail, uint32_t holder,
                        uintptr_t held_site, const char *held_title)
    CG_COLD __attribute__((noreturn));
static void lock_report(cg_lock_event_t ev, const cg_lock_t *l, uintptr_t site,
                        const cg_call_t *call, const char *detail, uint32_t holder,
                        uintptr_t held_site, const char *held_title)
{
    if (cg_lock_hooks.report != NULL)
        cg_lock_hooks.report(ev, l, site, call, detail, holder, held_site, held_title);
    char buf[512];
    size_t n = cg_fmt(buf, sizeof buf, "==chunkguard: %s: %s (before initialisation)\n",
                      ev == CG_LOCK_EV_DEADLOCK ? "deadlock" : "lock-wait-timeout", detail);
    cg_os_write_all(2, buf, n);
    cg_os_abort();
}

static void report_deadlock(cg_lock_t *l, uintptr_t site, const cg_call_t *call)
    CG_COLD __attribute__((noreturn));
static void report_deadlock(cg_lock_t *l, uintptr_t site, const cg_call_t *call)
{
    char name[48], msg[128];
    cg_lock_name(l, name, sizeof name);
    cg_fmt(msg, sizeof msg, "it (tid %d) takes the %s again", (int)cg_lock_me(), name);
    lock_report(CG_LOCK_EV_DEADLOCK, l, site, call, msg, cg_lock_me(), CG_LOAD(l->site),
                "The lock was first taken by this thread");
}

/* holder and held_at: what the waiter saw for the whole wait (re-read
 * now, the lock might just have come free). */
static void report_timeout(cg_lock_t *l, uintptr_t site, const cg_call_t *call,
                           uint64_t waited_ns, uint32_t holder, uintptr_t held_at)
    CG_COLD __attribute__((noreturn));
static void report_timeout(cg_lock_t *l, uintptr_t site, const cg_call_t *call,
                           uint64_t waited_ns, uint32_t holder, uintptr_t held_at)
{
    char name[48], msg[320];
    cg_lock_name(l, name, sizeof name);
    if (holder == 0) {
        /* taken, and no thread noted as its holder (cg_lock_slow) */
        cg_fmt(msg, sizeof msg, "this thread (tid %d) waited %zu ms for the %s, held all that "
               "time with no thread noted as its holder: its taker stopped right after taking "
               "it (a signal handler that interrupted it there and never returned, or it was "
               "stopped) (deadlock_timeout_ms=%d)", (int)cg_lock_me(),
               (size_t)(waited_ns / 1000000), name, cg_opt.deadlock_timeout_ms);
        lock_report(CG_LOCK_EV_TIMEOUT, l, site, call, msg, 0, 0, NULL);
    }
    cg_fmt(msg, sizeof msg, "this thread (tid %d) waited %zu ms for the %s, held all that "
           "time by thread tid %d (deadlock_timeout_ms=%d)", (int)cg_lock_me(),
           (size_t)(waited_ns / 1000000), name, (int)holder, cg_opt.deadlock_timeout_ms);
    lock_report(CG_LOCK_EV_TIMEOUT, l, site, call, msg, holder, held_at,
                "The holder took the lock");
}

/* Is thread tid of this process making progress: running or runnable
 * (state R in /proc/self/task/TID/stat), or in an uninterruptible kernel
 * wait (D: a page fault, fork copying the address space, I/O), which no
 * lock of ours can cause?  False when it sleeps interruptibly (a futex
 * wait among them), is stopped, has exited, or /proc cannot say.  No
 * malloc, errno untouched. */
static bool thread_running(uint32_t tid)
{
    char path[48], buf[256];
    cg_fmt(path, sizeof path, "/proc/self/task/%u/stat", (unsigned)tid);
    if (cg_os_read_small(path, buf, sizeof buf) == 0)
        return false;
    /* "TID (comm) S ...": comm may hold spaces and parentheses, so the
     * state follows the last ')'. */
    const char *close_paren = NULL;
    for (const char *q = buf; *q; q++)
        if (*q == ')')
            close_paren = q;
    return close_paren != NULL && close_paren[1] == ' ' &&
           (close_paren[2] == 'R' || close_paren[2] == 'D');
}

/* Which of our locks each sleeping waiter waits for, so that a waiter
 * whose holder sleeps can tell a holder that itself waits in a chain of
 * our locks ending in a thread that runs (the fork handler taking every
 * arena while other threads allocate) from one that will never let go.
 * One slot per tid modulo WAITS, claimed by its thread; a thread whose
 * slot another holds is not recorded (its waiters judge it asleep, as
 * before).  Written only by the waiter itself, read by the others as a
 * hint. */
#define WAITS 1024
static CG_BIG_BSS uint32_t wait_tid[WAITS];
static CG_BIG_BSS const cg_lock_t *wait_lock[WAITS];

/* Record that this thread is about to sleep on l (NULL: it stopped). */
static void note_waiting(const cg_lock_t *l)
{
    uint32_t me = cg_lock_me(), free_ = 0;
    size_t i = me % WAITS;
    if (l == NULL) {
        if (CG_LOAD(wait_tid[i]) == me) {
            CG_STORE(wait_lock[i], NULL);
            __atomic_store_n(&wait_tid[i], 0, __ATOMIC_RELEASE);
        }
        return;
    }
    if (CG_LOAD(wait_tid[i]) == me ||
        __atomic_compare_exchange_n(&wait_tid[i], &free_, me, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED))
        CG_STORE(wait_lock[i], l);
}

/* The lock thread tid sleeps on, or NULL when it is not known to wait for
 * one of ours. */
static const cg_lock_t *waiting_on(uint32_t tid)
{
    size_t i = tid % WAITS;
    const cg_lock_t *l = CG_LOAD(wait_lock[i]);
    return __atomic_load_n(&wait_tid[i], __ATOMIC_ACQUIRE) == tid ? l : NULL;
}

/* A chain of holders as one waiter saw it: link k is lock[k], held by
 * tid[k] at its acquisition number gen[k]; tid[k] slept, waiting for
 * lock[k + 1] (the last for none of ours, or for a lock on the chain). */
#define CHAIN 8
typedef struct chain {
    size_t n;
    const cg_lock_t *lock[CHAIN];
    uint32_t tid[CHAIN], gen[CHAIN];
} chain_t;

/* Does every lock of c still have the holder and acquisition number it
 * had when the chain was read?  Then each holder kept its lock from
 * before the kernel said it slept until now. */
static bool chain_holds(const chain_t *c)
{
    for (size_t k = 0; k < c->n; k++)
        if (__atomic_load_n(&c->lock[k]->gen, __ATOMIC_ACQUIRE) != c->gen[k] ||
            CG_LOAD(c->lock[k]->owner) != c->tid[k])
            return false;
    return true;
}

static bool chain_same(const chain_t *a, const chain_t *b)
{
    if (a->n != b->n)
        return false;
    for (size_t k = 0; k < a->n; k++)
        if (a->lock[k] != b->lock[k] || a->tid[k] != b->tid[k] || a->gen[k] != b->gen[k])
            return false;
    return true;
}

/* Will the holder of l let go in time?  Yes when it runs (state R or D)
 * or waits for another of our locks whose holder will — followed along
 * the chain, at most 8 threads deep (a longer chain counts as moving).
 * No when it sleeps otherwise, or the chain comes back to a thread
 * already on it (this one included): a cycle of waiters.  Each link is
 * read as its lock's acquisition number, then its holder, then the
 * holder's state, so a No is only a suspicion: the links are read one
 * after another while the threads go on, and a holder read just before
 * it let go and went to sleep elsewhere (or to wait for a lock held by a
 * thread already on the chain) looks like a stuck holder or a cycle.
 * *c gets the chain read (for No); the caller confirms it (chain_holds,
 * and the same chain on a later look). */
static bool holder_will_let_go(const cg_lock_t *l, uint32_t gen, uint32_t tid, chain_t *c)
{
    uint32_t me = cg_lock_me();
    c->n = 0;
    for (;;) {
        if (tid == me)
            return false;                  /* a cycle back to this thread */
        for (size_t k = 0; k < c->n; k++)
            if (c->tid[k] == tid)
                return false;              /* a cycle of waiters */
        if (c->n == CHAIN)
            return true;
        c->lock[c->n] = l;
        c->tid[c->n] = tid;
        c->gen[c->n++] = gen;
        if (thread_running(tid))
            return true;
        if ((l = waiting_on(tid)) == NULL)
            return false;                  /* asleep, and not on our locks */
        gen = __atomic_load_n(&l->gen, __ATOMIC_ACQUIRE);
        if ((tid = CG_LOAD(l->owner)) == 0)
            return true;                   /* that lock was just released */
    }
}

/* Contended path of the three-state futex lock: spin a little, then mark
 * the lock contended and sleep until the holder's unlock wakes us — in
 * slices no longer than what is left of deadlock_timeout_ms. */
void cg_lock_slow(cg_lock_t *l, uintptr_t site, const cg_call_t *call)
{
    if (CG_UNLIKELY(CG_LOAD(l->owner) == cg_lock_me()))
        report_deadlock(l, site, call);
    for (int spin = 0; spin < CG_LOCK_SPIN; spin++) {
        CG_CPU_RELAX();
        uint32_t zero = 0;
        if (__atomic_load_n(&l->state, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&l->state, &zero, 1, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
    }
    int64_t limit = (int64_t)CG_LOAD(cg_opt.deadlock_timeout_ms) * 1000000;
    /* The clock measures how long one acquisition has kept the lock, not
     * how long this thread has waited: under contention the lock changes
     * hands many times while a waiter sleeps (the unlock wakes one waiter
     * only), often back to the same thread at the same site.  So it starts
     * again whenever the acquisition count or the holder changes, or
     * a wake-up says it was released; the wait is cut into eighths of the
     * limit so that a change is seen in time.  When the limit is reached
     * with a holder that is running, runnable or in a kernel wait
     * (preempted on a busy machine, not blocked), or that waits for
     * another of our locks along a chain ending in such a thread, it
     * starts again too: a deadlock is a holder that cannot run, or a
     * cycle of waiters.  Such a judgement is read link by link while the
     * threads go on (holder_will_let_go), so it is believed only when it
     * holds up: every lock on the chain still has the holder and the
     * acquisition it had (chain_holds), and the next look, a slice later,
     * finds the very same chain stuck again.  A real deadlock stays put
     * and is reported a slice after the limit; a chain that moves, however
     * slowly its threads run on a loaded machine, changes in between.
     * The price: a holder looping forever with the lock is not reported.
     * A lock held with no holder noted (owner 0, the acquisition count
     * unchanged) is one whose taker stopped between its compare-and-swap
     * and its note, or an unlocker between clearing the owner and freeing
     * the word: two instructions a running thread passes at once.  Seen so
     * for the whole wait, it is a taker that will not run again (a signal
     * handler that interrupted it there and never returns); its clock does
     * not restart, but with no thread to ask whether it runs the wait is
     * longer (unnoted_limit), and confirmed a slice later as well. */
    uint64_t start = limit > 0 ? cg_os_now_ns() : 0;
    const int64_t slice = limit / 8 > 1000000 ? limit / 8 : 1000000;   /* one look's wait */
    const int64_t unnoted_limit = 2 * limit > 1000000000 ? 2 * limit : 1000000000;
    uint32_t held_gen = CG_LOAD(l->gen);
    uint32_t held_by = CG_LOAD(l->owner);
    uintptr_t held_at = CG_LOAD(l->site);
    chain_t seen, suspect;                 /* the chain read now; the one judged stuck */
    bool suspected = false;                /* suspect was judged stuck a slice ago */
    suspect.n = 0;
    if (limit > 0)
        note_waiting(l);
    while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0) {
        if (limit <= 0) {
            cg_os_futex_wait(&l->state, 2, -1);
            continue;
        }
        uint64_t now = cg_os_now_ns();
        uint32_t gen = CG_LOAD(l->gen);
        uint32_t owner = CG_LOAD(l->owner);
        if (gen != held_gen || owner != held_by) {
            held_gen = gen;
            held_by = owner;
            held_at = CG_LOAD(l->site);
            start = now;
            suspected = false;
        }
        /* this wait's limit: no holder noted, no holder to ask */
        const int64_t lim = held_by != 0 ? limit : unnoted_limit;
        int64_t waited = (int64_t)(now - start);
        if (waited >= lim) {
            /* The holders' states were read after their locks': a chain
             * that no longer holds (a holder let go in between, and sleeps
             * elsewhere now) is one that moved.  No holder noted: the
             * empty chain, stuck while the count and owner stay put. */
            seen.n = 0;
            bool stuck = held_by == 0 ||
                         (!holder_will_let_go(l, held_gen, held_by, &seen) && chain_holds(&seen));
            if (stuck && suspected && chain_same(&seen, &suspect))
                report_timeout(l, site, call, (uint64_t)waited, held_by, held_at);
            if (stuck) {
                suspect = seen;                  /* look again a slice later */
                suspected = true;
                waited = slice < lim ? lim - slice : 0;
            } else {
                suspected = false;
                waited = 0;
            }
            start = now - (uint64_t)waited;
        }
        int64_t wait = slice < lim - waited ? slice : lim - waited;
        long r = cg_os_futex_wait(&l->state, 2, wait);
        if (r == 0 || r == -EAGAIN) {          /* released meanwhile */
            start = cg_os_now_ns();
            suspected = false;
        }
    }
    if (limit > 0)
        note_waiting(NULL);
}

void cg_unlock_wake(cg_lock_t *l)
{
    cg_os_futex_wake(&l->state);
}

void cg_lock_assert_failed(const cg_lock_t *l, const char *what, const char *where)
{
    char name[48], buf[256];
    cg_lock_name(l, name, sizeof name);
    size_t n = cg_fmt(buf, sizeof buf, "==chunkguard: lock assertion failed in %s(): %s: %s "
                      "(owner tid %d, this thread tid %d)\n", where, what, name,
                      (int)CG_LOAD(l->owner), (int)cg_lock_me());
    cg_os_write_all(2, buf, n);
    cg_os_abort();
}
