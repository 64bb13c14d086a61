/*
 * leaks.c — debug mode's leak check: blocks still live that the program can
 * no longer reach, grouped by allocation stack.
 *
 * A reachability scan in the manner of a conservative mark phase (the
 * method of Boehm's collector and of LeakSanitizer): every aligned word of
 * the roots that points into a live block (its start or inside it) marks
 * that block, and marked blocks are scanned in turn.  Roots: the writable
 * segments (data and bss, from dl_iterate_phdr) of every loaded module
 * except chunkguard's own, and the
 * calling thread's stack with its registers spilled onto it.  Not scanned:
 * the stacks and registers of other threads, which we cannot stop — a block
 * referenced only from another running thread's stack is reported as a
 * leak.  At exit (detect_leaks=1) other threads have normally finished.
 *
 * Memory for the work list and the groups comes from mmap; nothing here
 * allocates through malloc, so the check can run from a destructor.
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
#define MAX_GROUPS 4096

typedef struct group {
    uint32_t stack;
    size_t blocks, bytes;
    bool suppressed;               /* matched a suppression: not reported */
} group_t;

typedef struct scan {
    uint32_t *work;                /* marked, not yet scanned record ids */
    size_t nwork, capwork;
    uintptr_t big_lo, big_hi;      /* range of all big blocks           */
    group_t *groups;
    size_t ngroups, leaked_blocks, leaked_bytes;
    size_t supp_blocks, supp_bytes; /* in suppressed groups (not in leaked_*) */
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

/* Mark every live block that a word of [lo, hi) points into. */
static void scan_range(scan_t *s, uintptr_t lo, uintptr_t hi)
{
    lo = (lo + 7) & ~(uintptr_t)7;
    for (uintptr_t p = lo; p + 8 <= hi; p += 8) {
        uintptr_t v = *(const uintptr_t *)p;
        if (!cg_in_heap((void *)v) && (v < s->big_lo || v >= s->big_hi) &&
            !cg_shadow_in_pages((void *)v))
            continue;
        cg_shadow_t *r = cg_shadow_find_near((void *)v, MAX_BACK);
        if (r == NULL || r->mark || r->state != CG_SH_LIVE)
            continue;
        r->mark = 1;
        push(s, r);
    }
}

/* A guarded block's words, copied out a page at a time: another thread
 * may free it under the scan, and its pages are then sealed (a debug
 * block's memory stays readable in the quarantine). */
static void scan_guarded(scan_t *s, uintptr_t u, size_t len)
{
    uintptr_t buf[512];
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
            scan_guarded(s, u, usable(r));
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
 * program itself (a static link). */
static int scan_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    scan_t *s = arg;
    bool program = info->dlpi_name == NULL || info->dlpi_name[0] == 0;
    uintptr_t unw = cg_stack_unwinder_code();
    if (!program && (module_has(info, (uintptr_t)&cg_leak_check_impl) ||
                     (unw != 0 && module_has(info, unw))))
        return 0;
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        scan_range(s, lo, lo + ph->p_memsz);
        drain(s);
    }
    return 0;
}

static void scan_modules(scan_t *s)
{
    cg_os_each_module(scan_module, s);
}

static __attribute__((noinline)) void scan_stack(scan_t *s)
{
    __builtin_unwind_init();       /* callee-saved registers onto the stack */
    volatile uintptr_t anchor = 0;
    cg_mapping_t m;
    if (cg_find_mapping((uintptr_t)&anchor, &m))
        scan_range(s, (uintptr_t)&anchor, m.hi);
    drain(s);
}

static void collect(cg_shadow_t *r, void *arg)
{
    scan_t *s = arg;
    if (r->state != CG_SH_LIVE || r->mark || r->mode == CG_MODE_INTERNAL)
        return;
    s->leaked_blocks++;
    s->leaked_bytes += r->req;
    for (size_t i = 0; i < s->ngroups; i++)
        if (s->groups[i].stack == r->alloc_stack) {
            s->groups[i].blocks++;
            s->groups[i].bytes += r->req;
            return;
        }
    if (s->ngroups < MAX_GROUPS)
        s->groups[s->ngroups++] = (group_t){ r->alloc_stack, 1, r->req, false };
}

static CG_BIG_BSS char lbuf[16 * 1024];

/* Group g as a report (kind memory-leak, its allocation stack), for the
 * hash, the suppressions, report_path and the callback; msg: room for
 * its message. */
static void group_data(const scan_t *s, const group_t *g, cg_rdata_t *d, char *msg, size_t cap)
{
    const uintptr_t *pcs = NULL;
    size_t depth = g->stack ? cg_stack_get(g->stack, &pcs) : 0;
    cg_fmt(msg, cap, "Direct leak of %zu byte(s) in %zu object(s)", g->bytes, g->blocks);
    *d = (cg_rdata_t){
        .kind = CG_E_MEMORY_LEAK, .op = s->op, .message = msg, .tid = -1,
        .stacks = { { NULL, -1, NULL, 0 }, { "previously allocated", -1, pcs, depth } },
        .nstacks = 2, .block_size = g->bytes, .objects = g->blocks,
    };
}

/* Suppressions, per allocation stack (as LeakSanitizer's leak: lines): a
 * group that matches one is counted there and leaves the leak totals. */
static void suppress_groups(scan_t *s)
{
    for (size_t i = 0; i < s->ngroups; i++) {
        group_t *g = &s->groups[i];
        char msg[96];
        cg_rdata_t d;
        cg_dedup_t k;
        group_data(s, g, &d, msg, sizeof msg);
        cg_dedup_compute(&d, &k);
        if (k.rule < 0)
            continue;
        g->suppressed = true;
        cg_supp_count(k.rule, g->bytes, g->blocks);
        s->supp_blocks += g->blocks;
        s->supp_bytes += g->bytes;
        s->leaked_blocks -= g->blocks;
        s->leaked_bytes -= g->bytes;
    }
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
    for (size_t i = 0; i < s->ngroups; i++) {
        if (s->groups[i].suppressed)
            continue;
        char msg[96];
        cg_rdata_t d;
        cg_dedup_t k;
        group_data(s, &s->groups[i], &d, msg, sizeof msg);
        const uintptr_t *pcs = d.stacks[1].pcs;
        size_t depth = d.stacks[1].n;
        n = cg_fmt(lbuf, sizeof lbuf, "\nDirect leak of %zu byte(s) in %zu object(s) allocated from:\n",
                   s->groups[i].bytes, s->groups[i].blocks);
        if (depth > 0)
            n += cg_format_stack(lbuf + n, sizeof lbuf - n, pcs, depth, false);
        else
            n += cg_fmt(lbuf + n, sizeof lbuf - n, "    <no stack recorded (stack_depth=0, or allocated at start-up)>\n");
        cg_dedup_compute(&d, &k);
        n += cg_fmt(lbuf + n, sizeof lbuf - n, "HASH: chunkguard: %s of memory-leak in %s\n",
                    k.hex, k.top);
        cg_log_write(lbuf, n);
        /* The same group for machines: report_path and the callback. */
        cg_report_publish(&d, lbuf, &k);
    }
    if (s->supp_blocks > 0) {
        n = cg_fmt(lbuf, sizeof lbuf, "\nSuppressed: %zu byte(s) in %zu allocation(s) "
                   "(suppressions).\n", s->supp_bytes, s->supp_blocks);
        cg_log_write(lbuf, n);
    }
    n = cg_fmt(lbuf, sizeof lbuf, "\nSUMMARY: chunkguard: %zu byte(s) leaked in %zu allocation(s).\n"
               "(Reachability scan of globals and this thread's stack; blocks reachable only\n"
               " from other threads' stacks would be counted too.)\n",
               s->leaked_bytes, s->leaked_blocks);
    cg_log_write(lbuf, n);
}

/* The scan's own state is static, not on the stack it scans: its range
 * of big-block addresses would otherwise keep every big block alive. */
static scan_t the_scan;
static int scanning;

static size_t leak_check(const char *op)
{
    if (!cg_mode.instrumented || __atomic_exchange_n(&scanning, 1, __ATOMIC_ACQUIRE))
        return 0;
    scan_t *s = &the_scan;
    *s = (scan_t){0};
    s->op = op;
    s->groups = cg_os_map_guarded(MAX_GROUPS * sizeof *s->groups);
    size_t leaked = 0;
    if (s->groups != NULL) {
        /* With the shadow lock held no block is created, released or
         * unmapped by another thread while we read it. */
        bool mt = !CG_SINGLE_THREAD_P;
        if (mt)
            cg_shadow_lock_all();
        cg_shadow_each(prepare, s);
        scan_modules(s);
        scan_stack(s);
        cg_shadow_each(collect, s);
        if (mt)
            cg_shadow_unlock_all(false);
        if (cg_supp_active())
            suppress_groups(s);
        if (s->leaked_blocks > 0)
            print_report(s);
        leaked = s->leaked_blocks;
        if (s->work != NULL)
            cg_os_unmap_guarded(s->work, s->capwork * sizeof *s->work);
        cg_os_unmap_guarded(s->groups, MAX_GROUPS * sizeof *s->groups);
    }
    *s = (scan_t){0};
    __atomic_store_n(&scanning, 0, __ATOMIC_RELEASE);
    return leaked;
}

CG_REALIGN size_t cg_leak_check_impl(void)
{
    return leak_check("cg_leak_check");
}

void (*cg_leak_exit_hook)(void);

/* detect_leaks=1: check when the process exits (after the program's own
 * destructors: a preloaded library is finalised last).  Leaks make the
 * exit status exitcode (default 23, as LeakSanitizer's), or abort() with
 * abort_on_error=1. */
CG_REALIGN void cg_leak_check_at_exit(void)
{
    if (!cg_opt.detect_leaks)
        return;
    if (leak_check("exit") == 0)
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
