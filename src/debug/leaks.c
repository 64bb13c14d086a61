/*
 * leaks.c — debug mode's leak check: blocks still live that the program can
 * no longer reach, grouped by allocation stack.
 *
 * A reachability scan in the manner of a conservative mark phase (the
 * method of Boehm's collector and of LeakSanitizer): every aligned word of
 * the roots that points into a live block (its start or inside it) marks
 * that block, and marked blocks are scanned in turn.  Roots (docs/design.md,
 * "Leak roots"):
 *   - the writable segments (data and bss, from dl_iterate_phdr) of every
 *     loaded module except chunkguard's own and libunwind's;
 *   - the checking thread's live stack, from its live stack pointer up —
 *     at exit the stack pointer of the frame that called exit() (found by
 *     the unwinder), with that frame's callee-saved registers; for
 *     cg_leak_check() its caller's, spilled at entry — and never the dead
 *     memory below it, where returned frames (and the exit path's own
 *     frames, the check's included) leave stale copies of addresses.  The
 *     scan itself runs on a stack of its own, so its frames neither
 *     overwrite the program's stack nor become roots;
 *   - every other thread, stopped for the scan: each gets a real-time
 *     signal whose handler stores the registers it interrupted and its
 *     stack pointer, then waits, taking no lock, until the scan is done;
 *     its stack is scanned from that stack pointer (less the red zone) up
 *     to the end of its mapping (thread-locals included), and its
 *     registers.  A thread that blocks the signal or does not answer is
 *     scanned conservatively (its whole stack mapping, found from the
 *     stack pointer of the system call it blocks in), or, spinning with no
 *     system call, not at all; the report says which.
 * Marked blocks are "still reachable" (counted, not reported); an unmarked
 * block is a direct leak, and what only leaked blocks reach is an
 * indirect leak (as LeakSanitizer's).
 *
 * Memory for the work list, the module ranges and the groups comes from
 * mmap; nothing here allocates through malloc, so the check can run from a
 * destructor.
 */
#define _GNU_SOURCE
#include "leaks.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bigblock.h"
#include "debug.h"
#include "dedup.h"
#include "maps.h"
#include "options.h"
#include "render.h"
#include "report.h"
#include "shadow.h"
#include "stack.h"
#include "stackdepot.h"
#include "symbolize.h"

#define MAX_BACK   (64 * 1024)     /* interior pointers: look this far back */
#define MAX_GROUPS 4096            /* groups a report shows, largest first  */
#define REST_SLOTS (1u << 16)      /* distinct groups past MAX_GROUPS counted
                                    * (an open-addressing set, filled to 3/4) */
#define MAX_RANGES 4096            /* writable module segments              */
#define MAX_THREADS 1024           /* other threads stopped for one scan    */
#define MAX_NOTES  8               /* threads named in the report's notes   */
#define SCAN_STACK (256 * 1024)    /* the scan's own stack                  */
#define ANSWER_NS  (1000 * 1000000ull)   /* how long the scan waits for all
                                          * threads to answer            */
#define HOLD_NS    (10 * 1000000000ull)  /* the most a handler holds its
                                          * thread                       */
#define LEAVE_NS   (1000 * 1000000ull)   /* how long a check waits for the
                                          * threads to leave the handler */

/* mark values: 0 not reached (yet); PENDING: pointed to by a leaked block */
enum { REACHED = 1, INDIRECT = 2, DIRECT = 3, PENDING = 4 };

typedef struct group {
    uint32_t stack;
    bool indirect;
    size_t blocks, bytes;
    bool suppressed;               /* matched a suppression: not reported */
} group_t;

typedef struct range {
    uintptr_t lo, hi;
} range_t;

/* A thread stopped for the scan (or asked to stop).  The handler writes
 * regs, nregs and sp, then state; the scan reads them after it. */
enum { SLOT_ASKED = 1, SLOT_ANSWERED, SLOT_MASKED, SLOT_GONE, SLOT_NOSIG };
typedef struct stop_slot {
    uint32_t tid;                  /* kernel thread id                      */
    uint32_t state;                /* SLOT_*; a futex word                  */
    uint32_t gen;                  /* the stop it belongs to                */
    int sig;                       /* the signal it was sent (0: none)      */
    uintptr_t sp;                  /* the interrupted stack pointer         */
    size_t nregs;
    uintptr_t regs[CG_OS_NREGS];   /* the interrupted general registers     */
} stop_slot_t;

typedef struct note {
    uint32_t tid;
    uint8_t why;                   /* SLOT_MASKED, SLOT_ASKED (no answer)
                                    * or SLOT_NOSIG (no signal was free)   */
    bool scanned;                  /* its whole stack mapping was           */
} note_t;

typedef struct scan {
    uint32_t *work;                /* marked, not yet scanned record ids */
    size_t nwork, capwork;
    uint8_t from, mark;            /* scan_range marks the blocks marked
                                    * from with mark                     */
    uintptr_t big_lo, big_hi;      /* range of all big blocks           */
    group_t *groups;
    size_t ngroups, leaked_blocks, leaked_bytes, reach_blocks, reach_bytes;
    range_t *ranges;               /* module segments, read before the stop */
    size_t nranges;
    uintptr_t live_sp;             /* the checking thread's live stack pointer */
    uintptr_t regs[8];             /* its caller's callee-saved registers   */
    size_t nregs;
    size_t stopped, untracked, nnotes, nmore;
    note_t notes[MAX_NOTES];
    size_t supp_blocks, supp_bytes; /* in suppressed groups (not in leaked_*) */
    uint64_t *rest_set;            /* keys of the groups past MAX_GROUPS     */
    size_t (*rest_val)[2];         /* each key's bytes and blocks           */
    cg_leak_rest_t rest;           /* those groups, counted, not shown      */
    const char *op;                /* "exit" or "cg_leak_check", for JSON */
} scan_t;

static size_t usable(const cg_shadow_t *r)
{
    return r->req;
}

static void prepare(cg_shadow_t *r, void *arg)
{
    scan_t *s = arg;
    r->mark = 0;
    if (!r->guarded && cg_is_mmapped(r->chunk)) {
        uintptr_t lo = (uintptr_t)r->chunk, hi = lo + (r->head & ~(size_t)CG_FLAG_BITS);
        if (s->big_lo == 0 || lo < s->big_lo)
            s->big_lo = lo;
        if (hi > s->big_hi)
            s->big_hi = hi;
    }
}

static void push(scan_t *s, cg_shadow_t *r)
{
    if (s->nwork == s->capwork) {
        size_t ncap = s->capwork ? s->capwork * 2 : 65536;
        uint32_t *nw = cg_os_map_guarded(ncap * sizeof *nw);
        if (nw == NULL)
            return;                /* out of memory: the block stays unscanned */
        if (s->work != NULL) {
            memcpy(nw, s->work, s->nwork * sizeof *nw);
            cg_os_unmap_guarded(s->work, s->capwork * sizeof *nw);
        }
        s->work = nw;
        s->capwork = ncap;
    }
    s->work[s->nwork++] = r->id;
}

/* Mark (with s->mark) every live block marked s->from (0 for the roots)
 * that a word of [lo, hi) points into. */
static void scan_range(scan_t *s, uintptr_t lo, uintptr_t hi)
{
    lo = (lo + 7) & ~(uintptr_t)7;
    for (uintptr_t p = lo; p + 8 <= hi; p += 8) {
        uintptr_t v = *(const uintptr_t *)p;
        if (!cg_in_heap((void *)v) && (v < s->big_lo || v >= s->big_hi) &&
            !cg_shadow_in_pages((void *)v))
            continue;
        cg_shadow_t *r = cg_shadow_find_near((void *)v, MAX_BACK);
        if (r == NULL || r->mark != s->from || r->state != CG_SH_LIVE)
            continue;
        r->mark = s->mark;
        push(s, r);
    }
}

/* The words of [u, u + len), copied out a page at a time: memory that may
 * go away under the scan (a guarded block another thread frees, whose
 * pages are then sealed; a module being unloaded; the stack of a thread
 * that was not stopped).  A debug block's memory stays readable in the
 * quarantine, and a stopped thread's stack stays. */
static void scan_copied(scan_t *s, uintptr_t u, size_t len)
{
    uintptr_t buf[512];
    u = (u + 7) & ~(uintptr_t)7;
    while (len >= 8) {
        size_t want = len < sizeof buf ? len & ~(size_t)7 : sizeof buf;
        size_t got = cg_os_copy_readable(buf, (const void *)u, want);
        scan_range(s, (uintptr_t)buf, (uintptr_t)buf + (got & ~(size_t)7));
        if (got < want)
            return;                     /* freed and sealed meanwhile */
        u += got;
        len -= got;
    }
}

static void drain(scan_t *s)
{
    while (s->nwork > 0) {
        cg_shadow_t *r = cg_shadow_at(s->work[--s->nwork]);
        uintptr_t u = (uintptr_t)cg_shadow_user(r);
        if (r->guarded)
            scan_copied(s, u, usable(r));
        else
            scan_range(s, u, u + usable(r));
    }
}

/* Does module info hold address a in one of its PT_LOAD segments? */
static bool module_has(const struct dl_phdr_info *info, uintptr_t a)
{
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz)
            return true;
    }
    return false;
}

/* Roots: the writable PT_LOAD segments (data and bss, exactly as the
 * program headers give them) of every loaded module — except chunkguard's
 * own and libunwind's, which hold addresses of blocks (records, caches)
 * that are not the program's references, unless that module is the
 * program itself (a static link).  Listed before any thread is stopped:
 * dl_iterate_phdr takes the loader's lock, which a stopped thread may
 * hold. */
static int list_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    scan_t *s = arg;
    bool program = info->dlpi_name == NULL || info->dlpi_name[0] == 0;
    uintptr_t unw = cg_stack_unwinder_code();
    if (!program && (module_has(info, (uintptr_t)&cg_leak_check_impl) ||
                     (unw != 0 && module_has(info, unw))))
        return 0;
    for (size_t i = 0; i < info->dlpi_phnum && s->nranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        s->ranges[s->nranges++] = (range_t){ lo, lo + ph->p_memsz };
    }
    return 0;
}

static void scan_modules(scan_t *s)
{
    for (size_t i = 0; i < s->nranges; i++) {
        scan_copied(s, s->ranges[i].lo, s->ranges[i].hi - s->ranges[i].lo);
        drain(s);
    }
}

/* The end of the stack that sp is on: the end of its mapping, or of the
 * heap block it is in (a thread given a stack from malloc: the rest of
 * that heap is no root).  0 when sp is in no mapping. */
static uintptr_t stack_end(uintptr_t sp, uintptr_t *lo)
{
    if (cg_in_heap((void *)sp)) {
        cg_shadow_t *r = cg_shadow_find_near((void *)sp, 1u << 20);
        if (r == NULL)
            return 0;
        *lo = (uintptr_t)cg_shadow_user(r);
        return *lo + usable(r);
    }
    cg_mapping_t m;
    if (!cg_find_mapping(sp, &m))
        return 0;
    *lo = m.lo;
    return m.hi;
}

/* ---- other threads ---------------------------------------------------- */

static CG_BIG_BSS stop_slot_t slots[MAX_THREADS];
static uint32_t nslots;            /* slots in use for this stop            */
static uint32_t stop_gen;          /* odd while a stop holds threads; futex */
static uint32_t in_handler;        /* threads inside on_stop now; futex     */

/* The stop signal's handler, on the stopped thread: store the interrupted
 * registers and stack pointer, say so, and wait until the scan lets go
 * (at most HOLD_NS).  Async-signal-safe; takes no lock, allocates nothing:
 * the thread may hold any of chunkguard's locks or libc's.
 *
 * The handler runs with every signal blocked, and a thread that blocks
 * the stop signal outside a system call cannot be scanned: a check that
 * began while a thread was still on its way out of the last check's
 * handler took it for one that blocks the signal for good, and reported
 * the blocks only its stack held (tests/leaks/repeat.c).  So the thread
 * is inside a masked section (base/platform.h) for the whole handler —
 * a check that finds it masked there sends the signal anyway — and lifts
 * the mask itself, the interrupted code's mask, before it leaves the
 * section and is counted out of in_handler; release_threads waits until
 * in_handler is 0, so a check returns only once every thread it stopped
 * is back to its own mask.  (Counted in before stop_gen is read: a
 * release that saw no thread inside made the stop's gen even first.) */
static void on_stop(const void *uc)
{
    bool sect = cg_os_section_enter();
    __atomic_add_fetch(&in_handler, 1, __ATOMIC_SEQ_CST);
    uint32_t gen = __atomic_load_n(&stop_gen, __ATOMIC_SEQ_CST);
    uint32_t me = cg_os_gettid(), n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
    stop_slot_t *sl = NULL;
    for (uint32_t i = 0; (gen & 1) && i < n && sl == NULL; i++)   /* even: that stop is over */
        if (slots[i].tid == me && slots[i].gen == gen)
            sl = &slots[i];
    if (sl != NULL && __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SLOT_ASKED) {
        sl->nregs = cg_os_ucontext_regs(uc, sl->regs, CG_OS_NREGS, &sl->sp);
        __atomic_store_n(&sl->state, SLOT_ANSWERED, __ATOMIC_RELEASE);
        cg_os_futex_wake(&sl->state);
        uint64_t end = cg_os_now_ns() + HOLD_NS;
        while (__atomic_load_n(&stop_gen, __ATOMIC_ACQUIRE) == gen) {
            uint64_t now = cg_os_now_ns();
            if (now >= end)
                break;
            cg_os_futex_wait(&stop_gen, gen, (int64_t)(end - now));
        }
    }
    cg_os_ucontext_unmask(uc);
    cg_os_section_leave(sect);
    if (__atomic_sub_fetch(&in_handler, 1, __ATOMIC_SEQ_CST) == 0)
        cg_os_futex_wake_all(&in_handler);
}

/* Ask every other thread to stop, and wait (at most ANSWER_NS in all)
 * until each has answered.  Caller holds the shadow locks: no stopped
 * thread holds one, so the scan can take none. */
static void stop_threads(scan_t *s)
{
    uint32_t tids[MAX_THREADS];
    size_t total = cg_os_threads(tids, MAX_THREADS), me = cg_os_gettid();
    if (total <= 1)
        return;
    /* taken for this stop only, given back by release_threads: a signal
     * kept installed between checks would be the program's to reset or
     * take meanwhile, and then kill it or run its handler at the next */
    int sig = cg_os_stop_signal_take(on_stop, 0);
    uint32_t gen = __atomic_add_fetch(&stop_gen, 1, __ATOMIC_ACQ_REL);   /* odd */
    uint32_t n = 0;
    if (total > MAX_THREADS)
        s->untracked = total - MAX_THREADS;
    for (size_t i = 0; i < total && i < MAX_THREADS; i++) {
        if (tids[i] == me)
            continue;
        stop_slot_t *sl = &slots[n];
        sl->tid = tids[i];
        sl->gen = gen;
        sl->sp = 0;
        sl->nregs = 0;
        /* the program may have set its own action on the signal since it
         * was taken (another of its threads runs meanwhile): never send
         * it then; take another, or stop no more threads */
        if (sig != 0 && !cg_os_stop_signal_held(sig))
            sig = cg_os_stop_signal_take(on_stop, sig);
        sl->sig = sig;
        int st = cg_os_thread_status(tids[i], sig);
        /* A thread inside one of chunkguard's masked sections (the
         * unwinder's, base/platform.h) blocks signals for a moment: it is
         * sent the signal anyway, and answers when the mask lifts.  One
         * found masked and outside a section may have just left it (the
         * mask is lifted before the section is left): its mask is read
         * again, a few times; one still masked outside a section blocks
         * the signal for good (a sigwait loop, which must not be sent it:
         * sigwait would take it). */
        for (int k = 0; st == CG_OS_THREAD_MASKED && sig != 0 && k < 8; k++) {
            if (cg_os_in_section(tids[i])) {
                st = CG_OS_THREAD_RUNS;
                break;
            }
            st = cg_os_thread_status(tids[i], sig);
        }
        if (st == CG_OS_THREAD_GONE)
            continue;                  /* exited (a zombie main thread) */
        bool masked = sig == 0 || st == CG_OS_THREAD_MASKED;
        __atomic_store_n(&sl->state, sig == 0 ? SLOT_NOSIG : masked ? SLOT_MASKED : SLOT_ASKED,
                         __ATOMIC_RELEASE);
        __atomic_store_n(&nslots, ++n, __ATOMIC_RELEASE);
        if (!masked && !cg_os_thread_signal(tids[i], sig))
            __atomic_store_n(&sl->state, SLOT_GONE, __ATOMIC_RELEASE);
    }
    uint64_t end = cg_os_now_ns() + ANSWER_NS;
    for (uint32_t i = 0; i < n; i++)
        while (__atomic_load_n(&slots[i].state, __ATOMIC_ACQUIRE) == SLOT_ASKED) {
            uint64_t now = cg_os_now_ns();
            if (now >= end)
                break;
            cg_os_futex_wait(&slots[i].state, SLOT_ASKED, (int64_t)(end - now));
        }
}

/* Let the stopped threads go (a thread that answers later returns at
 * once), and give the signals back to the program — but one still
 * pending on a thread that has not answered (it blocks it, or has not run
 * since), whose delivery with the default action would end the process:
 * that one stays ours until a later check finds it delivered. */
static void release_threads(void)
{
    if (__atomic_load_n(&stop_gen, __ATOMIC_ACQUIRE) & 1) {
        __atomic_add_fetch(&stop_gen, 1, __ATOMIC_SEQ_CST);
        cg_os_futex_wake_all(&stop_gen);
    }
    /* every thread out of the handler, its own mask back (at most
     * LEAVE_NS: one the scheduler keeps from running is then found in
     * its masked section by the next check, and sent the signal) */
    uint64_t end = cg_os_now_ns() + LEAVE_NS;
    for (uint32_t k; (k = __atomic_load_n(&in_handler, __ATOMIC_SEQ_CST)) != 0;) {
        uint64_t now = cg_os_now_ns();
        if (now >= end)
            break;
        cg_os_futex_wait(&in_handler, k, (int64_t)(end - now));
    }
    uint64_t keep = 0;
    uint32_t n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        const stop_slot_t *sl = &slots[i];
        if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == SLOT_ASKED && sl->sig > 0 &&
            sl->sig <= 64 && cg_os_thread_pending(sl->tid, sl->sig))
            keep |= (uint64_t)1 << (sl->sig - 1);
    }
    cg_os_stop_signal_give_back(keep);
    __atomic_store_n(&nslots, 0, __ATOMIC_RELEASE);
}

static void add_note(scan_t *s, uint32_t tid, uint8_t why, bool scanned)
{
    if (s->nnotes < MAX_NOTES)
        s->notes[s->nnotes++] = (note_t){ tid, why, scanned };
    else
        s->nmore++;
}

/* The stopped threads' registers and live stacks; the others' whole
 * stack mappings when the system call they block in gives their stack
 * pointer. */
static void scan_threads(scan_t *s)
{
    uint32_t n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        stop_slot_t *sl = &slots[i];
        uint32_t st = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
        uintptr_t lo = 0, hi;
        if (st == SLOT_ANSWERED) {
            s->stopped++;
            scan_range(s, (uintptr_t)sl->regs, (uintptr_t)(sl->regs + sl->nregs));
            uintptr_t sp = sl->sp - CG_OS_RED_ZONE;
            if ((hi = stack_end(sl->sp, &lo)) != 0)
                scan_copied(s, sp > lo ? sp : lo, hi - (sp > lo ? sp : lo));
        } else if (st == SLOT_MASKED || st == SLOT_ASKED || st == SLOT_NOSIG) {
            uintptr_t sp = cg_os_thread_syscall_sp(sl->tid);
            bool found = sp != 0 && (hi = stack_end(sp, &lo)) != 0;
            if (found)
                scan_copied(s, lo, hi - lo);
            add_note(s, sl->tid, (uint8_t)st, found);
        }
        drain(s);
    }
}

/* ---- the scan --------------------------------------------------------- */

/* A block no root reaches is a direct leak when no other leaked block
 * points to it, and what direct leaks reach is indirect (as
 * LeakSanitizer's); a cycle of leaked blocks that nothing else points to
 * keeps one direct leak (LeakSanitizer calls all of it indirect).  In
 * passes over the records: every leaked block's contents mark what they
 * reach PENDING; leaked blocks left unmarked are DIRECT, and mark what
 * they reach INDIRECT; a block still PENDING is on such a cycle: it
 * becomes DIRECT and marks the rest of it. */
static bool leaked(const cg_shadow_t *r)
{
    return r->state == CG_SH_LIVE && r->mode != CG_MODE_INTERNAL && r->mark != REACHED;
}

static void scan_contents(scan_t *s, cg_shadow_t *r, uint8_t from, uint8_t mark)
{
    s->from = from;
    s->mark = mark;
    uintptr_t u = (uintptr_t)cg_shadow_user(r);
    if (r->guarded)
        scan_copied(s, u, usable(r));
    else
        scan_range(s, u, u + usable(r));
    drain(s);
}

static void mark_pointed_to(cg_shadow_t *r, void *arg)
{
    if (leaked(r))
        scan_contents(arg, r, 0, PENDING);
}

static void mark_direct(cg_shadow_t *r, void *arg)
{
    (void)arg;
    if (leaked(r) && r->mark == 0)
        r->mark = DIRECT;
}

static void mark_indirect(cg_shadow_t *r, void *arg)
{
    if (leaked(r) && r->mark == DIRECT)
        scan_contents(arg, r, PENDING, INDIRECT);
}

static void mark_cycles(cg_shadow_t *r, void *arg)
{
    if (leaked(r) && r->mark == PENDING) {
        r->mark = DIRECT;
        scan_contents(arg, r, PENDING, INDIRECT);
    }
}

static void mark_leaked(scan_t *s)
{
    cg_shadow_each(mark_pointed_to, s);
    cg_shadow_each(mark_direct, s);
    cg_shadow_each(mark_indirect, s);
    cg_shadow_each(mark_cycles, s);
}

/* A leaked block whose group is past the report's MAX_GROUPS: counted in
 * s->rest (its group once, by (stack, indirect) in rest_set; when the set
 * is 3/4 full, further groups make rest.groups a lower bound). */
static void count_rest(scan_t *s, uint32_t stack, bool indirect, size_t bytes)
{
    s->rest.bytes += bytes;
    s->rest.objects++;
    s->rest.limit = MAX_GROUPS;
    uint64_t key = ((uint64_t)stack << 1 | indirect) + 1;   /* never 0: 0 is empty */
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 48);
    for (; s->rest_set[i] != 0; i = (i + 1) & (REST_SLOTS - 1))
        if (s->rest_set[i] == key) {
            s->rest_val[i][0] += bytes;
            s->rest_val[i][1]++;
            return;
        }
    if (s->rest.groups >= REST_SLOTS / 4 * 3) {
        s->rest.at_least = true;      /* counted in the totals, not by group */
        return;
    }
    s->rest_set[i] = key;
    s->rest_val[i][0] = bytes;
    s->rest_val[i][1] = 1;
    s->rest.groups++;
}

static void collect(cg_shadow_t *r, void *arg)
{
    scan_t *s = arg;
    if (r->state != CG_SH_LIVE || r->mode == CG_MODE_INTERNAL)
        return;
    if (r->mark == REACHED) {
        s->reach_blocks++;
        s->reach_bytes += r->req;
        return;
    }
    bool indirect = r->mark == INDIRECT;
    s->leaked_blocks++;
    s->leaked_bytes += r->req;
    for (size_t i = 0; i < s->ngroups; i++)
        if (s->groups[i].stack == r->alloc_stack && s->groups[i].indirect == indirect) {
            s->groups[i].blocks++;
            s->groups[i].bytes += r->req;
            return;
        }
    if (s->ngroups < MAX_GROUPS) {
        s->groups[s->ngroups++] = (group_t){ r->alloc_stack, indirect, 1, r->req, false };
        return;
    }
    count_rest(s, r->alloc_stack, indirect, r->req);
}

/* The whole check but the report, on the scan's own stack. */
static void scan_body(void *arg)
{
    scan_t *s = arg;
    cg_os_each_module(list_module, s);
    /* With the shadow lock held no block is created, released or
     * unmapped by another thread while we read it, and no thread we stop
     * holds it. */
    bool mt = !CG_SINGLE_THREAD_P;
    if (mt) {
        cg_shadow_lock_all(NULL);
        stop_threads(s);
    }
    /* Records are read only now that the other threads are stopped: one
     * made just before the lock may not have its size or state yet. */
    cg_shadow_each(prepare, s);
    s->from = 0;
    s->mark = REACHED;
    scan_modules(s);
    /* this thread: its caller's registers, and its stack from the live
     * stack pointer up */
    scan_range(s, (uintptr_t)s->regs, (uintptr_t)(s->regs + s->nregs));
    uintptr_t lo = 0, hi = stack_end(s->live_sp, &lo);
    if (hi != 0)
        scan_range(s, s->live_sp, hi);
    drain(s);
    scan_threads(s);
    mark_leaked(s);
    /* the verdicts while the threads still stand: one that went on would
     * finish a record the scan saw half-made */
    cg_shadow_each(collect, s);
    if (mt) {
        release_threads();
        cg_shadow_unlock_all(false);
    }
}

static CG_BIG_BSS char lbuf[16 * 1024];

static void print_notes(scan_t *s, char *b, size_t cap, size_t *n)
{
    for (size_t i = 0; i < s->nnotes; i++) {
        const note_t *t = &s->notes[i];
        *n += cg_fmt(b + *n, cap - *n, "(thread %d %s: %s)\n", (int)t->tid,
                     t->why == SLOT_MASKED ? "blocks the signal the check stops threads with"
                     : t->why == SLOT_NOSIG ? "was not stopped: every real-time signal has a "
                                              "handler of the program's, none was free to stop it with"
                                            : "did not answer the signal the check stops threads with",
                     t->scanned ? "its whole stack mapping was scanned"
                                : "its stack was not scanned (no system call to find it from), so "
                                  "blocks only it holds are reported");
    }
    if (s->nmore > 0)
        *n += cg_fmt(b + *n, cap - *n, "(and %zu more such thread(s))\n", s->nmore);
    if (s->untracked > 0)
        *n += cg_fmt(b + *n, cap - *n, "(%zu thread(s) beyond the %d the check stops were not scanned)\n",
                     s->untracked, MAX_THREADS);
}

/* Group g as a report (kind memory-leak, its allocation stack), for the
 * hash, the suppressions, report_path and the callback; msg: room for
 * its message. */
static void group_data(const scan_t *s, const group_t *g, cg_rdata_t *d, char *msg, size_t cap)
{
    const uintptr_t *pcs = NULL;
    size_t depth = g->stack ? cg_stack_get(g->stack, &pcs) : 0;
    cg_fmt(msg, cap, "%s leak of %zu byte(s) in %zu object(s)", g->indirect ? "Indirect" : "Direct",
           g->bytes, g->blocks);
    *d = (cg_rdata_t){
        .kind = CG_E_MEMORY_LEAK, .op = s->op, .message = msg, .tid = -1,
        .stacks = { { NULL, -1, NULL, 0 }, { "previously allocated", -1, pcs, depth } },
        .nstacks = 2, .block_size = g->bytes, .objects = g->blocks,
        .not_shown = s->rest.objects > 0 ? &s->rest : NULL,
    };
}

/* One symbolizer run for the allocation stacks of every group not yet
 * suppressed (report/symbolize.h); false when no batch opened. */
static bool sym_groups(const scan_t *s)
{
    bool batch = cg_sym_batch_begin();
    for (size_t i = 0; batch && i < s->ngroups; i++) {
        if (s->groups[i].suppressed)
            continue;
        const uintptr_t *pcs = NULL;
        size_t depth = s->groups[i].stack ? cg_stack_get(s->groups[i].stack, &pcs) : 0;
        cg_sym_batch_add(pcs, depth, false);
    }
    if (batch)
        cg_sym_batch_run();
    return batch;
}

/* Does a suppression match group g?  Then it is counted there and leaves
 * the leak totals. */
static bool suppress_group(scan_t *s, const group_t *g)
{
    char msg[96];
    cg_rdata_t d;
    cg_dedup_t k;
    group_data(s, g, &d, msg, sizeof msg);
    cg_dedup_compute(&d, &k);
    if (k.rule < 0)
        return false;
    cg_supp_count(k.rule, g->bytes, g->blocks);
    s->supp_blocks += g->blocks;
    s->supp_bytes += g->bytes;
    s->leaked_blocks -= g->blocks;
    s->leaked_bytes -= g->bytes;
    return true;
}

/* Suppressions, per allocation stack (as LeakSanitizer's leak: lines), for
 * the groups shown and for those past MAX_GROUPS (which leave the "not
 * shown" count too; matched by function and module: the symbolizer's
 * batch, for source-file patterns, holds the shown groups' stacks). */
static void suppress_groups(scan_t *s)
{
    /* the stacks symbolized first: a pattern may name a source file (one
     * symbolizer run here, another for the groups print_report writes) */
    bool snap = cg_maps_snapshot_begin();
    bool batch = sym_groups(s);
    for (size_t i = 0; i < s->ngroups; i++)
        s->groups[i].suppressed = suppress_group(s, &s->groups[i]);
    for (size_t i = 0; s->rest.groups > 0 && i < REST_SLOTS; i++) {
        uint64_t key = s->rest_set[i];
        if (key == 0)
            continue;
        group_t g = { (uint32_t)((key - 1) >> 1), ((key - 1) & 1) != 0, s->rest_val[i][1],
                      s->rest_val[i][0], false };
        if (!suppress_group(s, &g))
            continue;
        s->rest_set[i] = 0;           /* the set is not probed again */
        s->rest.groups--;
        s->rest.bytes -= g.bytes;
        s->rest.objects -= g.blocks;
    }
    if (batch)
        cg_sym_batch_end();
    if (snap)
        cg_maps_snapshot_end();
}

static void print_report(scan_t *s)
{
    /* largest groups first (insertion sort: a few thousand at most) */
    for (size_t i = 1; i < s->ngroups; i++) {
        group_t g = s->groups[i];
        size_t j = i;
        for (; j > 0 && s->groups[j - 1].bytes < g.bytes; j--)
            s->groups[j] = s->groups[j - 1];
        s->groups[j] = g;
    }
    size_t n = cg_fmt(lbuf, sizeof lbuf, "==%d==ERROR: chunkguard: detected memory leaks\n",
                      (int)cg_os_getpid());
    cg_log_write(lbuf, n);
    /* one read of the maps for every group's frames (base/maps.h) */
    bool snap = cg_maps_snapshot_begin();
    bool batch = sym_groups(s);
    for (size_t i = 0; i < s->ngroups; i++) {
        if (s->groups[i].suppressed)
            continue;
        char msg[96];
        cg_rdata_t d;
        cg_dedup_t k;
        group_data(s, &s->groups[i], &d, msg, sizeof msg);
        const uintptr_t *pcs = d.stacks[1].pcs;
        size_t depth = d.stacks[1].n;
        n = cg_fmt(lbuf, sizeof lbuf, "\n%s leak of %zu byte(s) in %zu object(s) allocated from:\n",
                   s->groups[i].indirect ? "Indirect" : "Direct", s->groups[i].bytes,
                   s->groups[i].blocks);
        /* the HASH line's room kept: frames give way, not it */
        size_t hash_room = CG_DEDUP_TOP_MAX + 96;
        if (depth > 0)
            n += cg_format_stack(lbuf + n, sizeof lbuf - n - hash_room, pcs, depth, false);
        else
            n += cg_fmt(lbuf + n, sizeof lbuf - n, "    <no stack recorded (stack_depth=0, or allocated at start-up)>\n");
        cg_dedup_compute(&d, &k);
        n += cg_fmt(lbuf + n, sizeof lbuf - n, "HASH: chunkguard: %s of memory-leak in %s\n",
                    k.hex, k.top);
        cg_log_write(lbuf, n);
        /* The same group for machines: report_path and the callback. */
        cg_report_publish(&d, lbuf, &k);
    }
    if (s->rest.objects > 0) {
        n = cg_fmt(lbuf, sizeof lbuf, "\n... %s%zu more leak groups (%zu bytes in %zu allocations) "
                   "not shown (the report's limit of %zu groups)\n",
                   s->rest.at_least ? "at least " : "", s->rest.groups, s->rest.bytes,
                   s->rest.objects, s->rest.limit);
        cg_log_write(lbuf, n);
    }
    if (s->supp_blocks > 0) {
        n = cg_fmt(lbuf, sizeof lbuf, "\nSuppressed: %zu byte(s) in %zu allocation(s) "
                   "(suppressions).\n", s->supp_bytes, s->supp_blocks);
        cg_log_write(lbuf, n);
    }
    if (batch)
        cg_sym_batch_end();
    if (snap)
        cg_maps_snapshot_end();
    n = cg_fmt(lbuf, sizeof lbuf, "\nSUMMARY: chunkguard: %zu byte(s) leaked in %zu allocation(s).\n"
               "(%zu byte(s) in %zu block(s) still reachable, not leaks.  Roots: globals; this\n"
               " thread's live stack and registers; %zu other thread(s) stopped: their live\n"
               " stacks and registers.)\n",
               s->leaked_bytes, s->leaked_blocks, s->reach_bytes, s->reach_blocks, s->stopped);
    print_notes(s, lbuf, sizeof lbuf, &n);
    cg_log_write(lbuf, n);
}

/* No leak: with verbosity=1, what the scan found still reachable. */
static void print_clean(scan_t *s)
{
    size_t n = cg_fmt(lbuf, sizeof lbuf,
                      "==%d==chunkguard: leak check: no leaks; %zu byte(s) in %zu block(s) still "
                      "reachable; %zu other thread(s) stopped\n",
                      (int)cg_os_getpid(), s->reach_bytes, s->reach_blocks, s->stopped);
    print_notes(s, lbuf, sizeof lbuf, &n);
    cg_log_write(lbuf, n);
}

/* The scan's own state is static, not on a stack it scans: its range
 * of big-block addresses would otherwise keep every big block alive. */
static scan_t the_scan;
static int scanning;

/* The check, for a thread whose live stack starts at live_sp, with its
 * caller's callee-saved registers regs (those not already spilled at or
 * above live_sp). */
static size_t leak_check(const char *op, uintptr_t live_sp, const uintptr_t *regs, size_t nregs)
{
    if (!cg_mode.instrumented || __atomic_exchange_n(&scanning, 1, __ATOMIC_ACQUIRE))
        return 0;
    if (!cg_os_copy_works()) {
        /* Globals, guarded blocks and other threads' stacks are read by
         * copy (never a fault); with no way to copy (a seccomp filter
         * refusing all three), every block would look lost: say so, and
         * report none as a leak. */
        size_t n = cg_fmt(lbuf, sizeof lbuf,
                          "==%d==WARNING: chunkguard: leak check (%s) not done: its roots could not "
                          "be read (process_vm_readv, a pipe and /proc/thread-self/mem were all "
                          "refused; a seccomp filter?), so no block is reported as a leak\n",
                          (int)cg_os_getpid(), op);
        cg_log_write(lbuf, n);
        __atomic_store_n(&scanning, 0, __ATOMIC_RELEASE);
        return 0;
    }
    scan_t *s = &the_scan;
    *s = (scan_t){0};
    s->op = op;
    s->live_sp = live_sp;
    for (size_t i = 0; i < nregs && i < sizeof s->regs / sizeof s->regs[0]; i++)
        s->regs[s->nregs++] = regs[i];
    s->groups = cg_os_map_guarded(MAX_GROUPS * sizeof *s->groups);
    s->ranges = cg_os_map_guarded(MAX_RANGES * sizeof *s->ranges);
    s->rest_set = cg_os_map_guarded(REST_SLOTS * sizeof *s->rest_set);
    s->rest_val = cg_os_map_guarded(REST_SLOTS * sizeof *s->rest_val);
    char *stack = cg_os_map_guarded(SCAN_STACK);
    size_t leaked = 0;
    if (s->groups != NULL && s->ranges != NULL && s->rest_set != NULL && s->rest_val != NULL &&
        stack != NULL) {
        cg_os_call_on_stack(scan_body, s, stack + SCAN_STACK);
        if (cg_supp_active())
            suppress_groups(s);
        if (s->leaked_blocks > 0)
            print_report(s);
        else if (cg_opt.verbosity >= 1)
            print_clean(s);
        leaked = s->leaked_blocks;
    }
    if (s->work != NULL)
        cg_os_unmap_guarded(s->work, s->capwork * sizeof *s->work);
    if (stack != NULL)
        cg_os_unmap_guarded(stack, SCAN_STACK);
    if (s->ranges != NULL)
        cg_os_unmap_guarded(s->ranges, MAX_RANGES * sizeof *s->ranges);
    if (s->groups != NULL)
        cg_os_unmap_guarded(s->groups, MAX_GROUPS * sizeof *s->groups);
    if (s->rest_set != NULL)
        cg_os_unmap_guarded(s->rest_set, REST_SLOTS * sizeof *s->rest_set);
    if (s->rest_val != NULL)
        cg_os_unmap_guarded(s->rest_val, REST_SLOTS * sizeof *s->rest_val);
    *s = (scan_t){0};
    __atomic_store_n(&scanning, 0, __ATOMIC_RELEASE);
    return leaked;
}

/* Our caller's callee-saved registers go onto the stack here (at or above
 * the anchor), and everything below the anchor is the check's. */
CG_REALIGN CG_NOINLINE size_t cg_leak_check_impl(void)
{
    __builtin_unwind_init();
    volatile uintptr_t anchor = 0;
    size_t n = leak_check("cg_leak_check", (uintptr_t)&anchor, NULL, 0);
    __asm__ volatile("" : : "r"(&anchor) : "memory");   /* no tail call */
    return n;
}

void (*cg_leak_exit_hook)(void);

/* detect_leaks=1: check when the process exits (after the program's own
 * destructors: a preloaded library is finalised last).  The live stack
 * is the one of the frame that called exit(); when the unwinder cannot
 * find it, this frame's (the exit path's frames above it are then
 * scanned too).  Leaks make the exit status exitcode (default 23, as
 * LeakSanitizer's), or abort() with abort_on_error=1. */
CG_REALIGN CG_NOINLINE void cg_leak_check_at_exit(void)
{
    if (!cg_opt.detect_leaks)
        return;
    __builtin_unwind_init();
    volatile uintptr_t anchor = 0;
    uintptr_t sp = 0, regs[8];
    size_t nregs = 0;
    if (!cg_stack_caller_of(cg_os_exit_function(), &sp, regs, &nregs) || sp < (uintptr_t)&anchor) {
        sp = (uintptr_t)&anchor;
        nregs = 0;
    }
    size_t leaked = leak_check("exit", sp, regs, nregs);
    __asm__ volatile("" : : "r"(&anchor) : "memory");
    if (leaked == 0)
        return;
    cg_supp_summary();
    if (cg_leak_exit_hook != NULL)
        cg_leak_exit_hook();
    /* stdio is flushed after the destructors run: do it now, or the
     * program's last output is lost with the exit status we change */
    cg_os_flush_stdio();
    if (CG_OPT_GIVEN(abort_on_error) && cg_opt.abort_on_error)
        cg_os_abort();
    cg_os_exit(CG_OPT_GIVEN(exitcode) ? cg_opt.exitcode : 23);
}
