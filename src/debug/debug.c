/*
 * debug.c — the instrumented mode: redzones, shadow records, poison and
 * quarantine, and the reports that name the block (see debug.h).
 */
#include "debug.h"
#include "debugblock.h"
#include "dthread.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <sys/auxv.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "arena.h"
#include "bigblock.h"
#include "fault.h"
#include "heapcheck.h"
#include "leaks.h"
#include "params.h"
#include "maps.h"
#include "options.h"
#include "pattern.h"
#include "quarantine.h"
#include "render.h"
#include "reuse.h"
#include "report.h"
#include "shadow.h"
#include "stack.h"
#include "stackdepot.h"
#include "stackmemo.h"
#include "symbolize.h"
#include "testhooks.h"
#include "vgclient.h"


static uint32_t next_tid;


static uintptr_t ldso_lo, ldso_hi;   /* the dynamic loader's code */

/* The dynamic loader's executable segment, from its program headers. */
static void find_loader(void)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)cg_os_getauxval(AT_BASE);
    if (eh == NULL)
        return;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
            ldso_lo = (uintptr_t)eh + ph[i].p_vaddr;
            ldso_hi = ldso_lo + ph[i].p_memsz;
        }
}

static bool priming;       /* blocks allocated now are chunkguard's own */

static bool core_report(const cg_call_t *call, cg_check_t id, cg_error_t kind, const void *addr,
                        const char *detail);

static size_t report_stack(uintptr_t *pcs, size_t max, uintptr_t caller);

CG_STARTUP void cg_debug_init(void)
{
    cg_report_stack_hook = report_stack;
    if (cg_opt.mode == CG_OPT_MODE_FAST)
        return;
    find_loader();
    cg_pattern_init();
    /* No fastbins: a chunk the quarantine gives back is then free to the
     * core at once, so a late second free is seen by the core's checks.
     * (At initialisation, single-threaded.) */
    const cg_call_t init = { .caller = 0, .op = "initialisation", .tc = NULL, .mt = false };
    cg_param_set(M_MXFAST, 0, &init);
    /* The quarantine keeps freed blocks resident: in huge pages a fork
     * copies 512 times fewer page-table entries for them (heap.h). */
    if (cg_opt.huge_pages)
        cg_heap_use_huge_pages();
    cg_fail_hook = core_report;
}

static void debug_start(void)
{
    if (cg_opt.stack_depth > 1) {
        priming = true;
        cg_stack_prime();
        priming = false;
    }
}

/* A stack capture (skip: as cg_stack_capture's, counted from the
 * function this is inlined into), or the call site alone while the
 * unwinder is not primed yet (start-up) or records call sites only (a
 * fork child of a threaded process, or libunwind not made safe): there
 * cg_stack_capture's one frame would be its caller's, ours, which no
 * code range tells from the program's when chunkguard is linked in. */
static inline __attribute__((always_inline)) size_t capture_pcs(uintptr_t *pcs, size_t depth,
                                                                size_t skip,
                                                                const cg_call_t *call)
{
    if (depth > 1 && cg_stack_mode() == CG_STACK_LIBUNWIND)
        return cg_stack_capture(pcs, depth, skip);
    pcs[0] = call->caller;
    return 1;
}

uint32_t cg_dbg_tid(bool mt)
{
    if (cg_self.tid == 0)
        cg_self.tid = (uint32_t)CG_ADD_IF(&next_tid, 1, mt);
    return cg_self.tid - 1;
}

/* How many of the captured frames pcs[0..n) are chunkguard's own: those
 * before the API call's return address into the program (call->caller),
 * or else those in our code segments.  The first works when chunkguard is
 * linked into the program too, where no code range tells its functions
 * from the program's. */
static size_t own_frames(const uintptr_t *pcs, size_t n, const cg_call_t *call)
{
    size_t k = cg_stack_caller_index(pcs, n, call->caller);
    if (k < n)
        return k;
    k = 0;
    while (k < n && cg_in_own_code(pcs[k]))
        k++;
    return k;
}

/* cg_report_stack_hook (report.h): a fast-mode report's stack, from the
 * program's frame at caller on, stack_depth frames at most.  The first
 * report primes the unwinder (fast mode has not loaded it) when the thread
 * is inside chunkguard: the loader's mallocs are then re-entrant calls,
 * served from their own mappings (entry/reentry.c), and in_capture marks
 * them as made on our behalf (counted, never reported).  Not primed: 0. */
static CG_COLD size_t report_stack(uintptr_t *pcs, size_t max, uintptr_t caller)
{
    size_t depth = cg_opt.stack_depth > 0 ? (size_t)cg_opt.stack_depth : 0;
    if (depth < 2 || max < 2 || cg_self.in_capture)
        return 0;
    /* priming allocates: only where those calls are re-entrant ones,
     * which never touch the heap just found damaged */
    if (cg_stack_mode() == CG_STACK_UNPRIMED && cg_self.inside) {
        /* priming's dlopen waits for the loader's lock, which another
         * thread may hold for long (or for ever: one stuck in a
         * dl_iterate_phdr callback): the first lines go out first */
        if (!CG_SINGLE_THREAD_P) {
            /* a fast-mode report is final: marked so before the write,
             * which may stall on a full log, that an exit of another
             * thread waiting for it ends the process as it would */
            cg_report_mark_fatal(true);
            cg_render_flush_head();
        }
        cg_self.in_capture = 1;
        cg_stack_prime();
        cg_self.in_capture = 0;
    }
    if (cg_stack_mode() != CG_STACK_LIBUNWIND)
        return 0;
    uintptr_t buf[CG_STACK_MAX];
    size_t got = cg_stack_capture(buf, CG_STACK_MAX, 0);
    const cg_call_t call = { .caller = caller };
    size_t k = own_frames(buf, got, &call);
    if (k >= got)
        return 0;
    size_t n = got - k;
    if (n > depth)
        n = depth;
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++)
        pcs[i] = buf[k + i];
    return n;
}

/* stack_depth=1: the depot id of the one-frame stack [pc], from the
 * thread's memo of its last call sites (searched whole) when it holds pc (most calls
 * come from a few sites), else from the depot, then remembered.  Saves
 * the depot's probe (a hash, a record check, a compare; ~70 instructions)
 * on each memo hit.  A refused put (depot full: 0) is not remembered. */
static uint32_t capture_site(uintptr_t pc)
{
    cg_dthread_t *t = cg_dthread_peek();
    if (t != NULL)
        for (size_t k = 0; k < CG_DTHREAD_SITES; k++)
            if (t->site_pc[k] == pc && t->site_id[k] != 0)
                return t->site_id[k];
    uintptr_t pcs[1] = { pc };
    uint32_t id = cg_stack_put(pcs, 1);
    if (t != NULL && id != 0) {
        size_t k = t->site_next++ & (CG_DTHREAD_SITES - 1);    /* round robin */
        t->site_pc[k] = pc;
        t->site_id[k] = id;
    }
    return id;
}

/* The calling thread's stack (stack_depth frames, from the program's call
 * into chunkguard) into the depot.  Called before any chunkguard lock.
 * Out of line, so that its frame and return address tell the stack memo
 * (stackmemo.h) which path through chunkguard led here. */
CG_NOINLINE uint32_t cg_dbg_capture(const cg_call_t *call)
{
    uintptr_t pcs[64 + 8];
    size_t depth = (size_t)cg_opt.stack_depth;
    if (depth == 0)
        return 0;
    if (depth == 1)
        return capture_site(call->caller);
    cg_memo_key_t key = { call->caller, (uintptr_t)pcs, CG_RET_ADDR, cg_self.tid };
    uint32_t id = cg_stack_memo_find(&key);
    if (id != 0)
        return id;
    /* Capture a few frames more than asked and drop chunkguard's own from
     * the top (however the compiler inlined them): the stack starts at the
     * program's call. */
    cg_callout_t co = cg_callout_begin();   /* a first capture may malloc */
    size_t n = capture_pcs(pcs, depth + 8 < 64 ? depth + 8 : 64, 0, call);
    cg_callout_end(co);
    size_t k = own_frames(pcs, n, call);
    if (k == n) {
        pcs[0] = call->caller;
        return cg_stack_put(pcs, 1);
    }
    n = n - k < depth ? n - k : depth;
    id = cg_stack_put(pcs + k, n);
    if (pcs[k] == call->caller && cg_stack_mode() == CG_STACK_LIBUNWIND) {
        co = cg_callout_begin();
        cg_stack_memo_note(&key, pcs + k, n, 0, id);
        cg_callout_end(co);
    }
    return id;
}

static size_t usable_bytes(const cg_chunk_t *c)
{
    return cg_is_mmapped(c) ? cg_big_usable(c) : cg_heap_usable(c);
}

/* How much of the leading redzone is filled and checked (debug.h). */
static size_t lead_checked(const cg_shadow_t *r)
{
    return cg_dbg_lead_checked(r->lead);
}

/* ---- reports ---------------------------------------------------------- */

/* A report of debug mode, as its body runs (cg_report_run): the
 * arguments of cg_dbg_report_at, and for dbg_report's own capture the
 * return address into dbg_report's caller (from), where "where" begins. */
typedef struct dbg_args {
    const cg_call_t *call;
    cg_check_t id;
    const void *addr;
    const char *detail;
    const cg_shadow_t *r;
    const uintptr_t *where;     /* given frames, or NULL: captured here */
    size_t nwhere;
    const cg_access_t *access;
    uintptr_t from;             /* dbg_report's return address, or 0    */
} dbg_args_t;

/* The "where" stack of a report that captures its own, into pcs (room
 * for CG_STACK_MAX frames): the calling thread's frames from dbg_report's
 * caller on, chunkguard's own frames dropped.  Returns its start in pcs;
 * *n: its frames. */
static const uintptr_t *where_here(const dbg_args_t *a, uintptr_t *pcs, size_t *n)
{
    size_t depth = (size_t)cg_opt.stack_depth, got = 0;
    if (depth > 1)
        got = capture_pcs(pcs, CG_STACK_MAX, 0, a->call);
    /* the report's own frames (this body, the stack switch, dbg_report) */
    size_t k = cg_stack_caller_index(pcs, got, a->from);
    if (k == got)
        k = 0;
    /* "where" starts in the program: chunkguard's own frames go */
    k += own_frames(pcs + k, got - k, a->call);
    if (k >= got) {
        pcs[0] = a->call->caller;
        *n = 1;
        return pcs;
    }
    *n = got - k < depth ? got - k : depth;
    return pcs + k;
}

static void dbg_report_body(void *arg)
{
    const dbg_args_t *a = arg;
    const cg_call_t *call = a->call;
    /* The record is read once, as a consistent copy: another thread may
     * free the block and reuse the record while this report is made (no
     * lock is taken: the reporting thread may hold any of ours).  A record
     * that changed meanwhile describes no block. */
    cg_shadow_t snap;
    const cg_shadow_t *r = a->r != NULL && cg_shadow_snapshot(a->r, &snap) ? &snap : NULL;
    const cg_access_t *access = a->access;
    char msg[1024];
    int tid = (int)cg_dbg_tid(call->mt);
    cg_rdata_t d = {
        .addr = a->addr, .op = call->op ? call->op : "an allocator call", .tid = tid,
        .stacks = { { NULL, tid, a->where, a->nwhere } }, .nstacks = 1, .access = access,
    };
    cg_check_fill(&d, a->id, a->detail, msg, sizeof msg);
    if (r != NULL) {
        const uintptr_t *pcs;
        d.has_block = true;
        d.block = cg_shadow_user(r);
        d.block_size = r->req;
        d.block_freed = !cg_shadow_seen_live(r->state);
        d.block_kind = cg_kind_name(r->kind);
        d.block_guarded = r->guarded;
        d.block_unguarded = !r->guarded && cg_opt.mode == CG_OPT_MODE_GUARD;
        if (!r->guarded) {
            /* from the record's copy of the size word: the chunk's own may
             * be the damage being reported */
            size_t csize = r->head & ~CG_FLAG_BITS;
            size_t usable = (r->head & CG_IS_MMAPPED) ? csize - CG_HDR_SZ : csize - CG_SIZE_SZ;
            d.has_layout = usable >= r->lead + r->req;
            d.lead_rz = lead_checked(r);
            d.tail_rz = d.has_layout ? usable - r->lead - r->req : 0;
            d.redzone_byte = CG_DBG_REDZONE;
            d.poison_byte = cg_dbg_poison_byte();
            d.poison_len = cg_dbg_poison_len(r->req);
            d.cookie_len = cg_dbg_cookie_len(r->kind, d.lead_rz);
        }
        if (d.block_freed) {
            size_t n = r->free_stack ? cg_stack_get(r->free_stack, &pcs) : 0;
            d.stacks[d.nstacks++] = (cg_rstack_t){ "freed", (int)r->free_tid, n ? pcs : NULL, n,
                                                   NULL, false };
        }
        size_t n = r->alloc_stack ? cg_stack_get(r->alloc_stack, &pcs) : 0;
        d.stacks[d.nstacks++] = (cg_rstack_t){ "previously allocated", (int)r->alloc_tid,
                                               n ? pcs : NULL, n, NULL, false };
    }
    /* The first lines out before the unwind, which reads the program's
     * stack (a fault in it, or a stack it cannot walk, loses nothing
     * already written).  The report lock is held across the unwind: a
     * capture may take the loader's lock, so a thread that reports while
     * it holds that lock waits for this report to end. */
    uintptr_t pcs[CG_STACK_MAX];
    if (a->where == NULL) {
        cg_report_emit_head(&d);
        if (access != NULL) {
            size_t depth = cg_opt.stack_depth > 0 ? (size_t)cg_opt.stack_depth : 1;
            d.stacks[0].pcs = pcs;
            d.stacks[0].n = cg_stack_capture_signal(access->ucontext, access->pc, pcs, depth);
            d.stacks[0].exact0 = true;
        } else {
            d.stacks[0].pcs = where_here(a, pcs, &d.stacks[0].n);
        }
    }
    if (access != NULL && access->passing)
        cg_report_emit_passing(&d);
    else
        cg_report_emit(&d, d.kind != CG_E_SEGV && access == NULL);
}

/* Write the report of check id (checks.def) about addr, found serving
 * call (its function, and its call site where no stack is captured): the
 * token and sentence from the catalogue, then detail (the numbers:
 * offsets, sizes, bytes found, and when; NULL for none; a later line
 * starts with "\n"), and the block's stacks when r, its record, is known.
 * Then the process ends — unless halt_on_error=0 or a report callback
 * returned, when it returns and the caller leaves the bad block out of
 * reuse for good (a fault, whose token is segv, always ends the
 * process).  The "where" stack starts at this function's caller. */
static CG_COLD CG_REALIGN void dbg_report(const cg_call_t *call, cg_check_t id, const void *addr,
                                          const char *detail, const cg_shadow_t *r)
{
    dbg_args_t a = { call, id, addr, detail, r, NULL, 0, NULL, CG_RET_ADDR };
    cg_report_run(dbg_report_body, &a);
}

_Static_assert((int)CG_RBLOCK_RANGE == (int)CG_GUARDED_RANGE &&
               (int)CG_RBLOCK_SLOT == (int)CG_GUARDED_SLOT,
               "a report's block kinds are the shadow record's");

CG_REALIGN void cg_dbg_report(const cg_call_t *call, cg_check_t id, const void *addr,
                              const char *detail, const cg_shadow_t *r)
{
    dbg_report(call, id, addr, detail, r);
}

CG_REALIGN void cg_dbg_report_at(const cg_call_t *call, cg_check_t id, const void *addr,
                                 const char *detail, const cg_shadow_t *r, const uintptr_t *where,
                                 size_t nwhere, const cg_access_t *access)
{
    /* where NULL without an access: the call site alone (as a capture of
     * one frame would give) */
    uintptr_t site = call->caller;
    if (where == NULL && access == NULL) {
        where = &site;
        nwhere = 1;
    }
    dbg_args_t a = { call, id, addr, detail, r, where, nwhere, access, 0 };
    cg_report_run(dbg_report_body, &a);
}

/* Up to 16 bytes found at p (len of them), as hex, after "found". */
static size_t hex_bytes(char *out, size_t cap, const unsigned char *p, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len && i < 16; i++)
        n += cg_fmt(out + n, cap - n, " %c%c", "0123456789abcdef"[p[i] >> 4],
                    "0123456789abcdef"[p[i] & 15]);
    return n;
}

/* The record of the block a is in; for heap corruption in a heap, else
 * the nearest block below a (an overflow runs upward): a few chunks back
 * over free space and the top chunk.  No lock (a report). */
static cg_shadow_t *block_at_or_below(const void *a, bool below)
{
    cg_shadow_t *r = cg_shadow_find(a, NULL);
    if (r != NULL || !below || !cg_in_heap(a) || cg_heap_offset(a) < CG_HEAP_DATA_OFF)
        return r;
    cg_heap_t *h = cg_heap_base(a);
    const char *p = a;
    for (int i = 0; i < 8 && p > h->data; i++) {
        cg_chunk_t *c = cg_heap_find_chunk(h, p - 1);
        if (c == NULL)
            return NULL;
        if ((r = cg_shadow_of(c, false, NULL)) != NULL && r->chunk == c && !r->guarded)
            return r;
        p = (const char *)c;
    }
    return NULL;
}

/* The core's checks (checks.c, cg_fail_hook) in an instrumented mode: the
 * report with the whole stack from the program's call, and the block the
 * address is in — or, for heap corruption, the nearest block below it,
 * with its stacks (a wild write into the top chunk names the block an
 * overflow of which reached it).  The fault handler's checks keep their
 * own way (fault.c: the faulting stack is the signal's).  True when it
 * reported (the caller then ends the process). */
static bool core_report(const cg_call_t *call, cg_check_t id, cg_error_t kind, const void *addr,
                        const char *detail)
{
    if (id == CG_CK_FAULT_INSIDE || id == CG_CK_FAULT_GUARD || id == CG_CK_FAULT_HEAP ||
        id == CG_CK_FAULT_OVERFLOW || id == CG_CK_FAULT_WILD)
        return false;
    dbg_report(call, id, addr, detail, block_at_or_below(addr, kind == CG_E_HEAP_CORRUPTION));
    return true;
}

/* ---- checks ----------------------------------------------------------- */

static CG_COLD void report_header(const cg_call_t *call, const cg_shadow_t *r,
                                  const cg_chunk_t *c)
{
    char msg[384];
    size_t now = cg_head(c);
    size_t n = cg_fmt(msg, sizeof msg, "its size word was 0x%x, is now 0x%x\n"
                      "    bytes changed:", r->head, now);
    for (int i = 0; i < 8; i++) {
        unsigned o = (unsigned)(r->head >> (8 * i)) & 0xff, v = (unsigned)(now >> (8 * i)) & 0xff;
        if (o != v)
            n += cg_fmt(msg + n, sizeof msg - n, " [+%d] %x->%x", i + 8, (size_t)o, (size_t)v);
    }
    dbg_report(call, CG_CK_DEBUG_HEADER, (const char *)c + 8, msg, r);
}

static bool check_block(const cg_call_t *call, const cg_shadow_t *r, const char *when);

/* The hint after r's chunk header (shadow.h) is not r's id: the bytes
 * were written, by an underflow of the block as a rule (they are the
 * first of its leading redzone), so it is reported as one, from the first
 * byte that changed. */
static CG_COLD void report_hint(const cg_call_t *call, const cg_shadow_t *r, const char *when)
{
    const unsigned char *h = (const unsigned char *)cg_shadow_hint(r->chunk);
    const unsigned char *u = cg_shadow_user(r);
    uint32_t want = r->id;
    const unsigned char *w = (const unsigned char *)&want, *bad = h;
    while (bad < h + CG_SHADOW_HINT_SZ - 1 && *bad == w[bad - h])
        bad++;
    char msg[384];
    size_t n = cg_fmt(msg, sizeof msg, "%zu bytes before a %zu-byte region (found %s, in the "
                      "record hint the leading redzone starts with); found", (size_t)(u - bad),
                      r->req, when);
    n += hex_bytes(msg + n, sizeof msg - n, h, CG_SHADOW_HINT_SZ);
    n += cg_fmt(msg + n, sizeof msg - n, " (expected");
    n += hex_bytes(msg + n, sizeof msg - n, w, CG_SHADOW_HINT_SZ);
    cg_fmt(msg + n, sizeof msg - n, ")");
    dbg_report(call, CG_CK_DEBUG_REDZONE_BEFORE, bad, msg, r);
}

/* Damage [bad, last] in the trailing redzone of r's block that does not
 * start at the block's end but reaches the chunk after it (its header's
 * first word, prev_size, is the redzone's last 8 bytes) is a write before
 * the next block, an underflow of it, not an overflow of this one: when
 * that chunk is a debug block, report it so, naming it ("N bytes before").
 * True when it reported. */
static bool blame_next(const cg_call_t *call, const cg_shadow_t *r, const unsigned char *bad,
                       const unsigned char *last, const char *when)
{
    const cg_chunk_t *c = r->chunk;
    if (cg_is_mmapped(c) || !cg_in_heap(c))
        return false;
    const cg_chunk_t *nc = cg_at(c, cg_csize(c));
    if ((const unsigned char *)nc > last + 1 || bad <= (const unsigned char *)cg_shadow_user(r) + r->req)
        return false;
    cg_shadow_t *nr = cg_heap_offset(nc) >= CG_HEAP_DATA_OFF &&
                              cg_start_test(cg_heap_base(c), nc)
                          ? cg_shadow_of(nc, false, call) : NULL;
    if (nr == NULL || nr->chunk != nc || nr->guarded)
        return false;
    const unsigned char *un = cg_shadow_user(nr);
    char msg[384];
    size_t span = (size_t)(last - bad) + 1;
    size_t n = span == 1
        ? cg_fmt(msg, sizeof msg, "1 byte changed, %zu bytes before a %zu-byte region (found "
                 "%s); found", (size_t)(un - bad), nr->req, when)
        : cg_fmt(msg, sizeof msg, "%zu bytes changed, from %zu to %zu bytes before a %zu-byte "
                 "region (found %s); found", span, (size_t)(un - bad), (size_t)(un - last),
                 nr->req, when);
    n += hex_bytes(msg + n, sizeof msg - n, bad, span);
    n += cg_fmt(msg + n, sizeof msg - n, "%s (expected %x)", span > 16 ? " ..." : "",
                (size_t)CG_DBG_REDZONE);
    size_t now = cg_head(nc);
    if ((now | CG_PREV_INUSE) != (nr->head | CG_PREV_INUSE))
        cg_fmt(msg + n, sizeof msg - n, "; its chunk's size word was 0x%x, is now 0x%x",
               nr->head, now);
    dbg_report(call, CG_CK_DEBUG_BEFORE_HEADER, bad, msg, nr);
    return true;
}

/* An overwritten header is often the far end of an overflow of the block
 * before it: when that block's trailing redzone is damaged too, the report
 * is about that block.  True when it reported. */
static bool blame_previous(const cg_call_t *call, const cg_chunk_t *c)
{
    if (!cg_in_heap(c))
        return false;
    cg_chunk_t *pc = cg_heap_find_chunk(cg_heap_base(c), (const char *)c - 1);
    cg_shadow_t *pr = pc ? cg_shadow_of(pc, false, call) : NULL;
    if (pr == NULL || (const char *)pc + cg_csize(pc) != (const char *)c)
        return false;
    return !check_block(call, pr, "next to a block whose header it overwrote");
}

/* Is the leading redzone of r's block (user pointer u) intact, hint and
 * all?  The common 16-byte one in two loads and compares (the hint is its
 * first 4 bytes, then 4 of fill and 8 more or the zero cookie, debug.h, a
 * short fill a byte scan would be slow on); false, for the caller to look
 * closer, when it is not, and for any other. */
CG_INLINE bool lead_intact(const cg_shadow_t *r, const unsigned char *u)
{
    if (r->lead != CG_DBG_LEAD)
        return false;
    const uint64_t rz = 0x0101010101010101ull * CG_DBG_REDZONE;
    uint64_t lo, hi;
    memcpy(&lo, u - 16, 8);
    memcpy(&hi, u - 8, 8);
    return lo == ((rz << 32) | r->id) &&
           hi == (cg_dbg_has_cookie(r->kind) ? 0 : rz);
}

/* Header and both redzones intact?  Reports heap-buffer-overflow (or
 * heap-corruption for the header) otherwise, and returns false (with
 * halt_on_error=0).  when: "at free", ... */
static bool check_block(const cg_call_t *call, const cg_shadow_t *r, const char *when)
{
    const cg_chunk_t *c = r->chunk;
    /* PREV_INUSE is the core's to change (the chunk before was freed) */
    if ((cg_head(c) | CG_PREV_INUSE) != (r->head | CG_PREV_INUSE)) {
        if (!blame_previous(call, c))
            report_header(call, r, c);
        return false;
    }
    const unsigned char *u = cg_shadow_user(r);
    size_t lz = lead_checked(r);
    const unsigned char *bad = NULL;
    char msg[384];
    if (!lead_intact(r, u)) {
        if (CG_LOAD(*cg_shadow_hint(c)) != r->id) {
            report_hint(call, r, when);
            return false;
        }
        bad = cg_dbg_lead_bad(r->kind, u, lz);
    }
    if (bad != NULL) {
        size_t n = cg_fmt(msg, sizeof msg, "%zu bytes before a %zu-byte region (found %s, "
                          "in the %zu checked); found", (size_t)(u - bad), r->req, when, lz);
        n += hex_bytes(msg + n, sizeof msg - n, bad, (size_t)(u - bad));
        if (cg_dbg_lead_byte(r->kind, u, bad) == 0)
            cg_fmt(msg + n, sizeof msg - n, " (expected zero bytes, the array cookie)");
        else
            cg_fmt(msg + n, sizeof msg - n, " (expected %x%s)", (size_t)CG_DBG_REDZONE,
                   cg_dbg_has_cookie(r->kind) ? ", then 8 zero bytes" : "");
        dbg_report(call, CG_CK_DEBUG_REDZONE_BEFORE, bad, msg, r);
        return false;
    }
    size_t tail = usable_bytes(c) - r->lead - r->req;
    bad = cg_pattern_find_not(u + r->req, tail, CG_DBG_REDZONE);
    if (bad != NULL) {
        /* how far the overflow reaches: the last changed byte */
        const unsigned char *last = bad;
        for (const unsigned char *q = u + r->req + tail; q-- > bad;)
            if (*q != CG_DBG_REDZONE) {
                last = q;
                break;
            }
        if (blame_next(call, r, bad, last, when))
            return false;
        size_t span = (size_t)(last - bad) + 1;
        bool to_end = last == u + r->req + tail - 1;
        size_t n = cg_fmt(msg, sizeof msg, "%zu bytes past a %zu-byte region (found %s), "
                          "from offset %zu%s; found", span, r->req, when, (size_t)(bad - u),
                          to_end ? " to the end of its redzone (the write may reach further)" : "");
        n += hex_bytes(msg + n, sizeof msg - n, bad, span);
        cg_fmt(msg + n, sizeof msg - n, "%s (expected %x)", span > 16 ? " ..." : "",
               (size_t)CG_DBG_REDZONE);
        dbg_report(call, CG_CK_DEBUG_REDZONE_AFTER, bad, msg, r);
        return false;
    }
    return true;
}

/* Is a quarantined block's poison intact?  Reports heap-use-after-free
 * (the write's offset, the bytes found, both stacks) when it is not. */
static bool check_poison(const cg_call_t *call, const cg_shadow_t *r, const char *when)
{
    const unsigned char *u = cg_shadow_user(r);
    size_t len = cg_dbg_poison_len(r->req);
    const unsigned char *bad = cg_pattern_find_not(u, len, cg_dbg_poison_byte());
    if (bad == NULL)
        return true;
    char msg[256];
    size_t n = cg_fmt(msg, sizeof msg, "at offset %zu of a %zu-byte block (found %s); found",
                      (size_t)(bad - u), r->req, when);
    size_t left = (size_t)(u + len - bad);     /* poisoned bytes from the first bad one */
    n += hex_bytes(msg + n, sizeof msg - n, bad, left < 8 ? left : 8);
    cg_fmt(msg + n, sizeof msg - n, " (expected %x)", (size_t)cg_dbg_poison_byte());
    dbg_report(call, CG_CK_DEBUG_POISON, bad, msg, r);
    return false;
}

static size_t quarantine_budget(void)
{
    return (size_t)cg_opt.quarantine_mb << 20;
}

/* The bytes a thread's cache of released chunks holds (reuse.h): an
 * eighth of the quarantine budget, none with quarantine_mb=0. */
static size_t reuse_limit(void)
{
    return quarantine_budget() / 8;
}

/* Unbind a released block's record and give its chunk back to the core.
 * Between the two a racing free of the block finds no record, yet the
 * core still holds the chunk in use: the thread's giving field names the
 * block meanwhile, and such a free waits for it (wait_giving) before it
 * looks again, so that it sees the block freed and reports a double free
 * instead of freeing the chunk a second time (issue 15, point 4).  (The
 * unbind goes first: once the core has the chunk its heap may be gone,
 * map and all.) */
static void give_back(cg_shadow_t *r, const cg_call_t *call)
{
    cg_chunk_t *c = r->chunk;
    bool big = cg_is_mmapped(c);
    void *user = cg_shadow_user(r);
    cg_dthread_t *t = cg_dthread_peek();
    if (t != NULL)
        __atomic_store_n(&t->giving, user, __ATOMIC_SEQ_CST);
    cg_shadow_delete(r, big, call);
    CG_TEST_HOOK(CG_HOOK_DBG_GIVE_BACK, user);
    cg_core_free(cg_chunk2mem(c), call);
    if (t != NULL)
        __atomic_store_n(&t->giving, NULL, __ATOMIC_RELEASE);
}

/* Wait until no thread is giving p back (give_back).  True when one was:
 * look p up again.  The registry's blocks are never unmapped, so its
 * list is walked without a lock. */
static bool wait_giving(const void *p)
{
    bool waited = false;
    for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = __atomic_load_n(&t->all, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&t->giving, __ATOMIC_SEQ_CST) == p) {
            waited = true;
            cg_os_yield();
        }
    return waited;
}

/* A block leaving the quarantine: header, redzones and poison intact (the
 * header first, so that an overflow from the block before is blamed on
 * it), then it waits in the thread's cache of released chunks (reuse.h)
 * or its record goes and its chunk returns to the core.  A damaged
 * block (reported, halt_on_error=0) keeps its record and chunk for good. */
static void release_block(cg_shadow_t *r, const cg_call_t *call)
{
    if (!check_block(call, r, "when it left the quarantine") ||
        !check_poison(call, r, "when it left"))
        return;
    if (cg_reuse_put(r, reuse_limit()))
        return;
    give_back(r, call);
}

/* Start the loads a release of r's block makes (release_block): its
 * header and leading redzone, the poison's first lines, the trailing
 * redzone's end.  Each is a cache miss: the block has been out of the
 * caches for the whole quarantine. */
static void prefetch_block(const cg_shadow_t *r)
{
    const char *c = (const char *)CG_LOAD(r->chunk);
    size_t size = CG_LOAD(r->head) & ~CG_FLAG_BITS;
    __builtin_prefetch(c);
    __builtin_prefetch(c + 64);
    __builtin_prefetch(c + 128);
    __builtin_prefetch(c + size - 8);
}

/* Release the blocks of a chain that left the quarantine (linked through
 * their records' next fields, 0 at its end), loads started ahead while
 * one block is checked, so that the chain's cache misses overlap the
 * checks instead of following one another: the record
 * CG_QUARANTINE_FAR (8) blocks on (its far link, quarantine.h), the
 * memory of the block 4 on (its record loaded 4 blocks ago), and, where
 * a batch starts (no far links reach it), the record two on and the
 * next block's memory.  A far link past the chain's end (a merged
 * segment cut in its middle) names a block still in the FIFO: only
 * prefetched, never used. */
#define AHEAD 4
static void release_chain(uint32_t id, const cg_call_t *call)
{
    cg_shadow_t *r = id != 0 ? cg_shadow_at(id) : NULL;
    cg_shadow_t *next = r != NULL && r->next != 0 ? cg_shadow_at(r->next) : NULL;
    cg_shadow_t *far[AHEAD] = { NULL };
    if (next != NULL)
        __builtin_prefetch(next);
    for (unsigned k = 0; r != NULL; k++) {
        /* r's and next's fields before the release reuses r's record */
        cg_shadow_t *f = r->far != 0 ? cg_shadow_at(CG_LOAD(r->far)) : NULL;
        if (f != NULL)
            __builtin_prefetch(f);
        cg_shadow_t *mid = far[k % AHEAD];
        far[k % AHEAD] = f;
        if (mid != NULL)
            prefetch_block(mid);
        cg_shadow_t *after = next != NULL && next->next != 0 ? cg_shadow_at(next->next) : NULL;
        if (after != NULL && mid == NULL) {
            __builtin_prefetch(after);
            prefetch_block(next);
        }
        release_block(r, call);
        r = next;
        next = after;
    }
}

/* A thread exits (its key's destructor, entry/init.c): the blocks it freed
 * last go from its batch to the shared quarantine, where they wait as any
 * other (a write after free to them is still found, by whichever thread
 * releases them or at exit). */
static void dbg_thread_exit(void)
{
    cg_call_t call = cg_call_internal("thread exit");
    release_chain(cg_quarantine_thread_exit(quarantine_budget(), &call), &call);
    for (uint32_t id = cg_reuse_drain(); id != 0;) {
        cg_shadow_t *r = cg_shadow_at(id);
        id = r->next;
        give_back(r, &call);
    }
    cg_shadow_thread_exit(&call);
    cg_dthread_retire(call.mt);
}

/* At exit, the blocks still in the quarantine are checked too: a short
 * program's write after free would otherwise never be seen.  arg: the
 * call (the exit's). */
static void check_at_exit(cg_shadow_t *r, void *arg)
{
    const cg_call_t *call = arg;
    if (check_block(call, r, "at exit"))
        check_poison(call, r, "at exit");
}

/* A block still live at exit: header and redzones (an overflow of a
 * block the program never frees would otherwise never be seen). */
static void check_live_at_exit(cg_shadow_t *r, void *arg)
{
    if (!r->guarded && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == CG_SH_LIVE)
        (void)check_block(arg, r, "at exit");
}

/* At exit: the quarantine, then — when no other thread is left to free
 * or reuse a block under the walk — every live block.  (glibc never sets
 * __libc_single_threaded again once a thread was created: the kernel's
 * count of the process's threads says whether the others have ended.) */
static void checks_at_exit(void)
{
    /* No program call: the reports name the exit. */
    cg_call_t call = cg_call_internal("exit");
    /* A report now ends the process before exit() would flush the
     * program's stdio buffers: flush them first, so that its output
     * is not lost (exit flushes them anyway; nothing allocates).  (_exit
     * flushes nothing: a forked child's copies of its parent's buffers
     * must not come out twice.) */
    cg_os_flush_stdio();
    cg_quarantine_each(check_at_exit, &call);
    bool alone = CG_SINGLE_THREAD_P || cg_os_nthreads() == 1;
    cg_reuse_each(check_at_exit, &call, alone);
    if (alone)
        cg_shadow_each(check_live_at_exit, &call);
}

/* At exit, the blocks first (an overflow or a write after free ends the
 * process with its report: the worse bug, and the program's output is
 * flushed before it), then the leak check (detect_leaks=1). */
static void debug_at_exit(void)
{
    checks_at_exit();
    cg_leak_check_at_exit();
}

/* At _exit or _Exit: the blocks, as at exit (a child that ends so would
 * take a write after free away unseen), but no leak check: such an exit
 * skips the program's own cleanup on purpose.  A forked child checks only
 * the blocks it freed itself: walking its parent's whole quarantine and
 * every live block at each child's end made a program that forks while
 * threads allocate five times slower (30-threads' fork test timed out);
 * its own exit() still checks everything. */
CG_FORK_PATH static void debug_at_exit_now(void)
{
    cg_call_t call = cg_call_internal("_exit");
    cg_reuse_each(check_at_exit, &call, false);
    if (cg_quarantine_each_since_fork(check_at_exit, &call))
        return;
    if (CG_SINGLE_THREAD_P || cg_os_nthreads() == 1)
        cg_shadow_each(check_live_at_exit, &call);
}


/* ---- lookup ----------------------------------------------------------- */

/* The record of the block p points into (or at), or NULL when p is in no
 * debug block: then the core's checks decide. */
static cg_shadow_t *find_block(const void *p, const cg_call_t *call)
{
    const cg_chunk_t *c = (const cg_chunk_t *)((const char *)p - CG_HDR_SZ - CG_DBG_LEAD);
    cg_shadow_t *r = NULL;
    if (cg_in_heap(p)) {
        /* the hint beside the header first: it is on the header's line,
         * which the checks read anyway; the map when it does not match */
        if (cg_heap_offset(c) >= CG_HEAP_DATA_OFF && cg_heap_base(c) == cg_heap_base(p) &&
            (r = cg_shadow_of_hint(c)) == NULL)
            r = cg_shadow_of(c, false, call);
        return r != NULL ? r : cg_shadow_find(p, call);
    }
    bool header_ok;
    if (cg_aligned_ok(p) && cg_big_owns(c, call, &header_ok))
        r = cg_shadow_of(c, true, call);
    return r != NULL ? r : cg_shadow_find(p, call);
}

/* free/realloc of a pointer in none of our heaps and no big block: say
 * what it points at, from /proc/self/maps. */
static CG_COLD void report_foreign(const cg_call_t *call, const void *p)
{
    const cg_chunk_t *c = (const cg_chunk_t *)((const char *)p - CG_HDR_SZ - CG_DBG_LEAD);
    if (cg_aligned_ok(p) && cg_big_recently_freed(c, call)) {
        dbg_report(call, CG_CK_DEBUG_BIG_FREED, p, NULL, NULL);
        return;
    }
    char msg[512];
    cg_dbg_describe_address(p, msg, sizeof msg);
    dbg_report(call, CG_CK_DEBUG_FOREIGN, p, msg, NULL);
}

size_t cg_dbg_describe_address(const void *p, char *msg, size_t cap)
{
    cg_mapping_t m;
    int local;
    cg_mapping_t here;
    if (!cg_find_mapping((uintptr_t)p, &m))
        return cg_fmt(msg, cap, "it is not in any mapping of the process (garbage, a NULL or "
                      "wild pointer, or memory already unmapped)");
    if (cg_find_mapping((uintptr_t)&local, &here) && here.lo == m.lo)
        return cg_fmt(msg, cap, "it is on this thread's stack (a local variable)");
    if (strcmp(m.path, "[stack]") == 0)
        return cg_fmt(msg, cap, "it is on the main thread's stack");
    if (m.truncated)        /* the first CG_MAPS_NAME_MAX - 1 bytes: said cut */
        memcpy(m.path + sizeof m.path - 4, "...", 3);
    if (m.path[0] == '/' && m.perms[1] == 'w')
        return cg_fmt(msg, cap, "it is in the writable data of %N (a global or static "
                      "variable)", m.path);
    if (m.path[0] != 0)
        return cg_fmt(msg, cap, "it is in %N (%s)", m.path, m.perms);
    return cg_fmt(msg, cap, "it is in an anonymous mapping that is not chunkguard's [%p, %p) "
                  "(another allocator, a thread stack, or mmap)", (void *)m.lo, (void *)m.hi);
}

/* ---- families (base/call.h): what allocated a block must release it ---- */

/* "operator delete() releases only what operator new() allocates", for
 * the family of call, into msg.  Returns its length. */
static size_t family_rule(char *msg, size_t cap, const cg_call_t *call)
{
    if (call->family == CG_FAMILY_MALLOC)
        return cg_fmt(msg, cap, "%s() releases only what malloc(), calloc(), realloc() or the "
                      "memalign family allocate", call->op);
    return cg_fmt(msg, cap, "%s() releases only what %s() allocates", call->op,
                  cg_family_new_name(call->family));
}

/* An array's cookie: the count that new[] keeps before an array of
 * objects with a destructor, for delete[] to read back (the Itanium C++
 * ABI, "Array Operator new Cookies").  It takes max(sizeof(size_t),
 * alignof(T)) bytes: 8 or 16 for any type plain new[] serves, the
 * alignment itself (a power of two above 16) for aligned new[].  A
 * pointer d bytes off a block's start may have stepped over one when d
 * is 8 or 16, or, with an aligned family on either side, such a power of
 * two. */
static bool cookie_size(size_t d, bool aligned)
{
    return d == 8 || d == 16 || (aligned && d > 16 && (d & (d - 1)) == 0);
}

static bool family_aligned(int f)
{
    return f == CG_FAMILY_NEW_ALIGNED || f == CG_FAMILY_NEW_ARRAY_ALIGNED;
}

/* p, not the start of live block r: a cookie's size before it while call
 * is an array delete and r no array (the compiler read a cookie that plain
 * new, or malloc, never wrote), or after it while r is an array and call
 * no array delete (a pointer to new[]'s first element).  Then that is
 * the report, alloc-dealloc-mismatch (returns true); false, nothing
 * reported, for any other pointer. */
static bool cookie_mismatch(const cg_call_t *call, const cg_shadow_t *r, const void *p)
{
    int fam = cg_kind_family(r->kind);
    const char *u = cg_shadow_user(r), *q = p;
    if (!cg_opt.alloc_dealloc_mismatch || fam == call->family ||
        call->family == CG_FAMILY_UNKNOWN)
        return false;
    bool before = q < u && cg_family_array(call->family) && !cg_family_array(fam);
    bool after = q > u && cg_family_array(fam) && !cg_family_array(call->family);
    size_t d = q < u ? (size_t)(u - q) : (size_t)(q - u);
    if (!(before || after) || !cookie_size(d, family_aligned(fam) || family_aligned(call->family)))
        return false;
    char msg[200];
    cg_fmt(msg, sizeof msg, "the block at %p came from %s(); %s() was given the address %zu "
           "bytes %s its start", (const void *)u, cg_kind_name(r->kind), call->op, d,
           before ? "before" : "after");
    dbg_report(call, CG_CK_ALLOC_DEALLOC_MISMATCH_COOKIE, p, msg, r);
    return true;
}

/* A release of block r by another family than the one that allocated it
 * is reported (recoverable: the block is sound, the release goes on). */
static void check_family(const cg_call_t *call, const cg_shadow_t *r, const void *p)
{
    if (cg_kind_family(r->kind) == call->family || call->family == CG_FAMILY_UNKNOWN ||
        !cg_opt.alloc_dealloc_mismatch)
        return;
    char msg[256];
    size_t n = cg_fmt(msg, sizeof msg, "the block came from %s(); ", cg_kind_name(r->kind));
    family_rule(msg + n, sizeof msg - n, call);
    dbg_report(call, CG_CK_ALLOC_DEALLOC_MISMATCH, p, msg, r);
}

/* A pointer into a block that is not its start, handed to free or realloc
 * (invalid-free) or to malloc_usable_size (invalid-pointer). */
CG_REALIGN void cg_dbg_report_not_start(const cg_call_t *call, cg_use_t use, const void *p,
                             const cg_shadow_t *rec)
{
    /* read once, consistently (the block may be freed meanwhile) */
    cg_shadow_t snap;
    if (!cg_shadow_snapshot(rec, &snap)) {
        dbg_report(call, CG_CK_FOR_USE(DEBUG_INTERIOR, use), p,
                   "the block it pointed into was freed meanwhile", NULL);
        return;
    }
    const cg_shadow_t *r = &snap;
    bool live = cg_shadow_seen_live(r->state);
    if (use != CG_USE_USABLE && live && cookie_mismatch(call, r, p))
        return;
    dbg_report(call, CG_CK_FOR_USE(DEBUG_INTERIOR, use), p,
               live ? NULL : "the block it points into was freed", r);
}

CG_REALIGN void cg_dbg_report_not_p(const cg_call_t *call, cg_use_t use, const void *p,
                                    const cg_shadow_t *r, cg_check_t freed)
{
    /* A record in state 0 is being made for a new block where p's block
     * was (freed by another thread just now, with no quarantine to keep
     * it): its fields are not settled, and p's block is gone, so this is
     * a release of a freed block. */
    if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == 0)
        dbg_report(call, freed, p, NULL, NULL);
    else
        cg_dbg_report_not_start(call, use, p, r);
}

/* ---- the API ---------------------------------------------------------- */

/*
 * Debug mode's operations behind its table (cg_mode_debug, at the end of
 * this file; contracts as the standard functions; the caller has
 * initialised the core).  call: the call served (its call site is where a
 * block's stacks start, its function what reports name).
 *   dbg_alloc       n bytes aligned to align (a power of two; <= 16 means
 *                   16), kind CG_KIND_*, zeroed when zero; NULL + ENOMEM
 *   dbg_free        sized: the size a C23 sized free gave, or SIZE_MAX;
 *                   salign: its alignment, or 0
 *   dbg_realloc     always moves the block (so stale pointers to the old
 *                   one hit the quarantine); realloc(p, 0) frees, as glibc
 *   dbg_usable      the requested size (so a program that uses all of its
 *                   usable size never touches the redzone)
 * The entries count the operation for verify_interval (realloc's inner
 * allocation, alloc_block, does not count again).
 */
static void *alloc_block(size_t n, size_t align, int kind, bool zero, const cg_call_t *call)
{
    bool mt = call->mt;
    uint32_t stack = cg_dbg_capture(call);
    uint8_t shift = cg_align_shift(align);
    if (align < CG_ALIGN)
        align = CG_ALIGN;
    size_t lead = align > CG_DBG_LEAD ? align : CG_DBG_LEAD;
    size_t rz = (size_t)cg_opt.redzone;
    if (n > CG_MAX_REQUEST - lead - rz - 64 || align > CG_MAX_REQUEST / 2) {
        errno = ENOMEM;
        return NULL;
    }
    size_t nb = cg_request2size(lead + n + rz);
    if (nb < 64)
        nb = 64;               /* one debug chunk per 64-byte shadow-map window */
    cg_shadow_t *r = NULL;
    if (align == CG_ALIGN) {    /* a size class's block (reuse.h) */
        nb = cg_reuse_round(nb);
        r = cg_reuse_get(nb);
    }
    cg_chunk_t *c;
    if (r != NULL) {
        /* a chunk that left the quarantine, its record still bound to it
         * and RELEASED until the block is made: what the last block left
         * goes */
        c = r->chunk;
        /* state 0 and a new generation before the fields change: a report
         * reading the record meanwhile (cg_shadow_snapshot) sees it */
        __atomic_store_n(&r->state, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->gen, (uint16_t)(r->gen + 1), __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        r->free_stack = r->free_tid = 0;
        r->mark = 0;
    } else {
        c = cg_core_alloc(nb, align, call);
        if (c == NULL) {
            errno = ENOMEM;
            return NULL;
        }
        uint32_t id;
        r = cg_shadow_new(c, cg_is_mmapped(c), call, &id);
        if (r == NULL) {
            cg_core_free(cg_chunk2mem(c), call);
            errno = ENOMEM;
            return NULL;
        }
    }
    r->req = n;
    r->head = cg_head(c);
    r->alloc_stack = stack;
    r->alloc_tid = cg_dbg_tid(mt);
    r->lead = (uint32_t)lead;
    r->kind = cg_kind_of_call(kind, call);
    r->align_shift = shift;
    /* The loader's own blocks (link maps, thread TLS blocks and vectors)
     * are referenced from places no leak scan reads (a thread's control
     * block in its cached stack): they are the system's, never leaks. */
    r->mode = cg_dbg_block_mode(call->caller);
    unsigned char *u = cg_shadow_user(r);
    /* the leading redzone from the hint's end, the hint over its first
     * bytes when the fill reaches them */
    size_t lz = lead_checked(r) + CG_SHADOW_HINT_SZ;
    cg_dbg_lead_fill(r->kind, u, lz);
    CG_STORE(*cg_shadow_hint(c), r->id);
    cg_pattern_fill_small(u + n, usable_bytes(c) - lead - n, CG_DBG_REDZONE);
    if (zero)
        memset(u, 0, n);
    else if (cg_opt.fill_alloc >= 0)
        memset(u, cg_opt.fill_alloc, n);
    __atomic_store_n(&r->state, CG_SH_LIVE, __ATOMIC_RELEASE);
    return cg_vg_new(u, n, zero);   /* redzones stay no-access (vgclient.h) */
}

uint8_t cg_dbg_block_mode(uintptr_t caller)
{
    return priming || (caller >= ldso_lo && caller < ldso_hi) ? CG_MODE_INTERNAL : CG_MODE_DEBUG;
}

static void *dbg_alloc(size_t n, size_t align, int kind, bool zero, const cg_call_t *call)
{
    cg_verify_tick(call);
    return alloc_block(n, align, kind, zero, call);
}

/* Take a live block for freeing or moving: its state goes from live to
 * claimed atomically and stays so until the free is done, so of two threads
 * freeing (or reallocating) one block, one wins and the other reports.
 * False, after the report of check freed (a double free), when the block
 * was not live — or when its record was reused for another block after we
 * looked it up (the block was freed and gone). */
bool cg_dbg_claim(const cg_call_t *call, cg_shadow_t *r, const void *p, cg_check_t freed)
{
    CG_TEST_HOOK(CG_HOOK_DBG_CLAIM, (void *)p);
    uint8_t st = CG_SH_LIVE;
    unsigned waits = 0;
    while (!__atomic_compare_exchange_n(&r->state, &st, CG_SH_CLAIMED, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
        /* Claimed and p's: a free or realloc of p finishing (then this
         * is a double free, seen once it is done), or a stale free of the
         * block this record had before, which undoes its claim at once:
         * wait and try again.  Else a double free; the report describes
         * the record only while it is still p's (its block may have gone
         * back to the core, the record to a new block, since the lookup).
         * One thread has no one to wait for: !mt, or (now and then, the
         * kernel's count) a fork child, where glibc leaves mt set and
         * the claim may be a thread's the child does not have. */
        if (st != CG_SH_CLAIMED || !call->mt || cg_shadow_user(r) != p ||
            (++waits % 64 == 0 && cg_os_nthreads() == 1)) {
            dbg_report(call, freed, p, NULL, cg_shadow_user(r) == p ? r : NULL);
            return false;
        }
        cg_os_yield();
        st = CG_SH_LIVE;
    }
    CG_TEST_HOOK(CG_HOOK_DBG_CLAIMED, (void *)p);
    if (cg_shadow_user(r) == p)
        return true;
    __atomic_store_n(&r->state, CG_SH_LIVE, __ATOMIC_RELEASE);   /* not p's: undo */
    dbg_report(call, freed, p, NULL, NULL);
    return false;
}

size_t cg_dbg_usable_of(const cg_call_t *call, const cg_shadow_t *r, const void *p,
                        cg_check_t freed)
{
    /* State and size are read, then the binding again: a record unbound
     * or bound to another block meanwhile (p freed by another thread and
     * gone) is not p's, and what was read of it is not p's either. */
    uint8_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
    size_t req = CG_LOAD(r->req);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    bool still = cg_shadow_user(r) == p;
    if (st == CG_SH_LIVE && still)
        return req;
    dbg_report(call, freed, p, NULL, still ? r : NULL);
    return 0;
}

bool cg_dbg_release_ok(const cg_call_t *call, const cg_shadow_t *r, const void *p, size_t sized,
                       size_t salign)
{
    char msg[96];
    bool cxx = call->family != CG_FAMILY_MALLOC;
    check_family(call, r, p);
    /* a block of another family: its size and alignment are not what the
     * release's arguments describe (reported above, or allowed) */
    if (cg_kind_family(r->kind) != call->family)
        return true;
    if (cxx && !cg_opt.new_delete_type_mismatch)
        return true;
    if (CG_CHECK_ON(SIZED_FREE) && sized != SIZE_MAX && sized != r->req) {
        cg_fmt(msg, sizeof msg, "%zu given, %zu requested", sized, r->req);
        dbg_report(call, cxx ? CG_CK_DEBUG_NEW_DELETE_SIZE : CG_CK_DEBUG_SIZED_FREE_SIZE, p, msg,
                   r);
        return false;
    }
    if (!CG_CHECK_ON(SIZED_FREE) || salign == 0)
        return true;
    if (!cxx) {
        if (((uintptr_t)p & (salign - 1)) != 0) {
            cg_fmt(msg, sizeof msg, "the alignment given is %zu", salign);
            dbg_report(call, CG_CK_SIZED_FREE_ALIGN, p, msg, r);
            return false;
        }
        return true;
    }
    /* aligned delete: exactly the alignment aligned new was given */
    size_t had = (size_t)1 << r->align_shift;
    if (salign != had) {
        cg_fmt(msg, sizeof msg, "alignment %zu given, %zu requested", salign, had);
        dbg_report(call, CG_CK_DEBUG_NEW_DELETE_ALIGN, p, msg, r);
        return false;
    }
    return true;
}

/* The rest of a free, on a claimed block: checks, free stack, poison,
 * quarantine.  A block found bad stays marked freed but never reaches the
 * quarantine or the heap again (halt_on_error=0). */
static void finish_free(const cg_call_t *call, cg_shadow_t *r, void *p, size_t sized,
                        size_t salign)
{
    cg_vg_gone(p);          /* freed for memcheck too, good or bad */
    bool ok = cg_dbg_release_ok(call, r, p, sized, salign) && check_block(call, r, "at free");
    r->free_stack = cg_dbg_capture(call);
    r->free_tid = cg_dbg_tid(call->mt);
    __atomic_store_n(&r->state, CG_SH_QUARANTINED, __ATOMIC_RELEASE);
    if (!ok)
        return;
    memset(p, cg_dbg_poison_byte(), cg_dbg_poison_len(r->req));
    release_chain(cg_quarantine_put(r->id, quarantine_budget(), call), call);
}

/* The record of the block p is (for use: free, realloc or
 * malloc_usable_size), or NULL: *none true when p is in no debug block
 * (nothing reported), else after the report of a pointer that is not its
 * block's start.  The first lookup may race a free of p by another thread
 * whose give-back unbinds the record (or binds it to a new block): a
 * record not p's, or none, is looked up again once no give-back of p is
 * under way (verify/models/giveback.pml), so what is said is what a
 * second call of one thread would say. */
static cg_shadow_t *lookup(const cg_call_t *call, const void *p, cg_use_t use, bool *none)
{
    cg_shadow_t *r = find_block(p, call);
    CG_TEST_HOOK(CG_HOOK_DBG_LOOKED_UP, (void *)p);
    if ((r == NULL || cg_shadow_user(r) != p) && (wait_giving(p) || r != NULL))
        r = find_block(p, call);
    *none = r == NULL;
    if (r != NULL && cg_shadow_user(r) != p) {
        cg_dbg_report_not_p(call, use, p, r,
                            use == CG_USE_FREE      ? CG_CK_DEBUG_DOUBLE_FREE
                            : use == CG_USE_REALLOC ? CG_CK_DEBUG_REALLOC_FREED
                                                    : CG_CK_DEBUG_USABLE_FREED);
        return NULL;
    }
    return r;
}

/* The block p is, claimed for a free or realloc (use), or NULL after the
 * right report (foreign pointers are reported here; stale heap pointers
 * by the core's checks). */
static cg_shadow_t *claim_block(const cg_call_t *call, void *p, cg_use_t use)
{
    bool none;
    cg_shadow_t *r = lookup(call, p, use, &none);
    if (none) {
        if (!cg_in_heap(p) && !cg_big_owns(cg_mem2chunk(p), call, &(bool){true}))
            report_foreign(call, p);   /* halt_on_error=0: ignored */
        else
            cg_core_free(p, call);     /* free heap memory or a stale pointer: the core reports */
        return NULL;
    }
    if (r == NULL || !cg_dbg_claim(call, r, p, use == CG_USE_REALLOC ? CG_CK_DEBUG_REALLOC_FREED
                                                                      : CG_CK_DEBUG_DOUBLE_FREE))
        return NULL;
    return r;
}

static void dbg_free(void *p, size_t sized, size_t salign, const cg_call_t *call)
{
    if (p == NULL)
        return;
    cg_verify_tick(call);
    cg_shadow_t *r = claim_block(call, p, CG_USE_FREE);
    if (r == NULL)
        return;
    finish_free(call, r, p, sized, salign);
}

static void *dbg_realloc(void *p, size_t n, const cg_call_t *call)
{
    if (n > CG_MAX_REQUEST) {
        errno = ENOMEM;
        return NULL;
    }
    if (p == NULL)
        return dbg_alloc(n, 0, CG_KIND_REALLOC, false, call);
    cg_verify_tick(call);
    /* With halt_on_error=0 a bad realloc returns NULL. */
    cg_shadow_t *r = claim_block(call, p, CG_USE_REALLOC);
    if (r == NULL)
        return NULL;
    /* The block is ours now (claimed): no other thread frees or moves it
     * under us, theirs is a double free. */
    if (!check_block(call, r, "at realloc")) {
        __atomic_store_n(&r->state, CG_SH_QUARANTINED, __ATOMIC_RELEASE);   /* kept out of reuse */
        return NULL;
    }
    if (n == 0) {
        finish_free(call, r, p, SIZE_MAX, 0);
        return NULL;
    }
    void *q = alloc_block(n, 0, CG_KIND_REALLOC, false, call);
    if (q == NULL) {
        __atomic_store_n(&r->state, CG_SH_LIVE, __ATOMIC_RELEASE);   /* unchanged */
        return NULL;
    }
    memcpy(q, p, r->req < n ? r->req : n);
    finish_free(call, r, p, SIZE_MAX, 0);
    return q;
}

void cg_dbg_report_wild(const void *a, uintptr_t pc, int write, void *uc, bool no_addr)
{
    cg_call_t call = cg_call_internal("a memory access");
    call.caller = pc;
    char msg[512];
    if (no_addr)
        cg_fmt(msg, sizeof msg, "the fault gave no address: a general-protection (or stack-"
               "segment) fault, which an access through a non-canonical pointer (such as "
               "0xdead000000000000) raises on x86-64");
    else
        cg_dbg_describe_address(a, msg, sizeof msg);
    cg_access_t acc = cg_dbg_access(pc, write, uc, true);
    acc.addr_unknown = no_addr;
    cg_dbg_report_at(&call, CG_CK_FAULT_WILD_POINTER, a, msg, NULL, NULL, 0, &acc);
}

void cg_dbg_report_stack_overflow(const void *a, uintptr_t pc, int write, void *uc,
                                  const char *detail)
{
    cg_call_t call = cg_call_internal("a memory access");
    call.caller = pc;
    cg_access_t acc = cg_dbg_access(pc, write, uc, true);
    cg_dbg_report_at(&call, CG_CK_FAULT_STACK_OVERFLOW, a, detail, NULL, NULL, 0, &acc);
}

void cg_dbg_report_fault(const cg_call_t *call, cg_check_t id, const void *a,
                         const cg_chunk_t *big, const char *detail)
{
    /* No lock in the fault handler; a big block's record by its chunk (its
     * header may be on a page the program made unreadable). */
    cg_shadow_t *r = big != NULL ? cg_shadow_of(big, true, NULL) : cg_shadow_find(a, NULL);
    if (r != NULL)
        dbg_report(call, id, a, detail, r);
}

/* ---- debug mode's table (core/mode.h) ---------------------------------- */

static void *dbg_malloc(size_t n, const cg_call_t *call)
{
    return dbg_alloc(n, 0, CG_KIND_MALLOC, false, call);
}

static void *dbg_calloc(size_t bytes, const cg_call_t *call)
{
    return dbg_alloc(bytes, 0, CG_KIND_CALLOC, true, call);
}

static void *dbg_memalign(size_t align, size_t n, const cg_call_t *call)
{
    return dbg_alloc(n, align, CG_KIND_MEMALIGN, false, call);
}

static size_t dbg_usable(void *p, const cg_call_t *call)
{
    if (p == NULL)
        return 0;
    bool none;
    cg_shadow_t *r = lookup(call, p, CG_USE_USABLE, &none);
    /* With halt_on_error=0 a bad pointer's usable size is 0. */
    if (none)
        dbg_report(call, CG_CK_DEBUG_USABLE_NOT_OURS, p, NULL, NULL);
    return r != NULL ? cg_dbg_usable_of(call, r, p, CG_CK_DEBUG_USABLE_FREED) : 0;
}

/* mallinfo's free bytes: the quarantine's and the reuse caches' chunks. */
static void dbg_held(size_t *heap_bytes, size_t *big_bytes, size_t *big_blocks)
{
    cg_quarantine_held(heap_bytes, big_bytes, big_blocks);
    *heap_bytes += cg_reuse_held();
}

const cg_mode_t cg_mode_debug = {
    .name = "debug",
    .tcache = false,
    .instrumented = true,
    .block_lead = CG_DBG_LEAD,
    .malloc = dbg_malloc,
    .calloc = dbg_calloc,
    .memalign = dbg_memalign,
    .realloc = dbg_realloc,
    .free = dbg_free,
    .usable = dbg_usable,
    .start = debug_start,
    .at_exit = debug_at_exit,
    .at_exit_now = debug_at_exit_now,
    .held = dbg_held,
    .thread_start = cg_fault_thread_start,
    .thread_exit = dbg_thread_exit,
};
