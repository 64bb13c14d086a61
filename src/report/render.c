/*
 * render.c — a report as text and as JSON, and where each goes (render.h).
 */
#include "render.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "chunkguard.h"
#include "dedup.h"
#include "fmt.h"
#include "lock.h"
#include "maps.h"
#include "options.h"
#include "symbolize.h"
#include "thread.h"
#include "vgclient.h"

/* Both under the report lock.  The text's room: three 64-frame stacks of
 * symbolized lines (a path and a line number each, inlined functions on
 * lines of their own). */
static CG_BIG_BSS char tbuf[64 * 1024];
static CG_BIG_BSS char jbuf[64 * 1024];

static cg_report_callback_t callback;
static void *callback_arg;

void cg_set_report_callback_impl(cg_report_callback_t cb, void *arg)
{
    __atomic_store_n(&callback_arg, arg, __ATOMIC_RELAXED);
    __atomic_store_n(&callback, cb, __ATOMIC_RELEASE);
}

bool cg_report_has_callback(void)
{
    return __atomic_load_n(&callback, __ATOMIC_ACQUIRE) != NULL;
}

/* ---- text ------------------------------------------------------------- */

static size_t put_frames(char *b, size_t cap, const cg_rstack_t *s)
{
    if (s->n == 0)
        return cg_fmt(b, cap, "    <no stack recorded (stack_depth=0, or allocated at start-up)>\n");
    return cg_format_stack(b, cap, s->pcs, s->n, s->exact0);
}

/* The first lines of the text report into b (up to the "where" stack):
 * what needs no unwinding and no symbol lookup, so they can be written
 * before anything that may fault.  Returns their length. */
static size_t render_head(char *b, size_t cap, const cg_rdata_t *d)
{
    const char *token = cg_error_token(d->kind);
    bool unknown = d->addr_unknown || (d->access != NULL && d->access->addr_unknown);
    size_t n = unknown ? cg_fmt(b, cap, "==%d==ERROR: chunkguard: %s on address <unknown>",
                                cg_os_getpid(), token)
                       : cg_fmt(b, cap, "==%d==ERROR: chunkguard: %s on address %p",
                                cg_os_getpid(), token, d->addr);
    if (d->access != NULL) {
        /* ASan's second line: the access, then what was found */
        n += cg_fmt(b + n, cap - n, " at pc %p\n%s", (void *)d->access->pc,
                    d->access->kind ? d->access->kind : "ACCESS (read or write)");
        if (d->access->size)
            n += cg_fmt(b + n, cap - n, " of size %zu", d->access->size);
        if (unknown)
            n += cg_fmt(b + n, cap - n, " at an unknown (non-canonical) address");
        else
            n += cg_fmt(b + n, cap - n, " at %p", d->addr);
        if (d->tid >= 0)
            n += cg_fmt(b + n, cap - n, " thread T%d", d->tid);
        n += cg_fmt(b + n, cap - n, "\n    ");
    } else {
        if (d->tid >= 0)
            n += cg_fmt(b + n, cap - n, " [thread T%d]", d->tid);
        n += cg_fmt(b + n, cap - n, "\n    %s(): ", d->op);
    }
    /* the message, its later lines indented like the first */
    for (const char *m = d->message; *m && n + 8 < cap; m++) {
        if (*m == '\n' && m[1] != 0)
            n += cg_fmt(b + n, cap - n, "\n    ");
        else if (*m != '\n')
            b[n++] = *m;
    }
    b[n] = 0;
    if (d->glibc != NULL)
        n += cg_fmt(b + n, cap - n, " (glibc: \"%s\")", d->glibc);
    n += cg_fmt(b + n, cap - n, "\n");
    return n;
}

/* The HASH and SUMMARY lines of d (k: its dedup hash) into b[cap]: the
 * room render_rest keeps for them.  Returns their length. */
#define TAIL_MAX (CG_DEDUP_TOP_MAX + CG_SYM_MODULE_MAX + 2 * CG_FMT_NAME_MAX + 512)
static size_t render_tail(char *b, size_t cap, const cg_rdata_t *d, const cg_dedup_t *k)
{
    const char *token = cg_error_token(d->kind);
    size_t n = 0;
    if (k->rule >= 0)           /* matched, yet written: a report that ends the process */
        n += cg_fmt(b + n, cap - n, "NOTE: chunkguard: a suppression matches this report, "
                    "but it ends the process: not suppressed\n");
    n += cg_fmt(b + n, cap - n, "HASH: chunkguard: %s of %s in %s\n", k->hex, token, k->top);
    if (d->access != NULL && d->nstacks > 0 && d->stacks[0].n > 0) {
        /* a fault: where it happened, the faulting instruction's function,
         * and its file:line when the symbolizer gave them (the innermost
         * inlined function's, as frame #0 shows first) */
        uintptr_t pc = d->stacks[0].pcs[0];
        const cg_sym_inline_t *fr;
        size_t nfr = cg_sym_lookup(pc, false, &fr);
        if (nfr > 0 && fr[0].function != NULL && fr[0].file != NULL && fr[0].line != 0) {
            n += cg_fmt(b + n, cap - n, "SUMMARY: chunkguard: %s in %N %P:%u\n", token,
                        fr[0].function, fr[0].file, (unsigned)fr[0].line);
        } else {
            /* "func (module+0xoff)" straight into b (a whole path: no
             * copy of it on the stack), room kept for the newline */
            n += cg_fmt(b + n, cap - n, "SUMMARY: chunkguard: %s in ", token);
            if (n + 2 < cap)
                n += cg_symbolize(pc, b + n, cap - n - 1);
            n += cg_fmt(b + n, cap - n, "\n");
        }
    } else {
        n += cg_fmt(b + n, cap - n, "SUMMARY: chunkguard: %s in %s()\n", token, d->op);
    }
    return n;
}

/* The rest of the text report, after its head, into b: the stacks, the
 * block, HASH (k: its dedup hash), SUMMARY.  The HASH and SUMMARY lines
 * are rendered first and their room kept: a report too big for cap loses
 * frames (cg_format_stack says how many), never its end.  Returns its
 * length. */
static size_t render_rest(char *b, size_t cap, const cg_rdata_t *d, const cg_dedup_t *k)
{
    char tail[TAIL_MAX];
    size_t tn = render_tail(tail, sizeof tail, d, k);
    if (tn + 1 >= cap) {
        tn = 0;                 /* no room at all: a head that filled it */
        tail[0] = 0;
    }
    size_t n = 0;
    cap -= tn;
    if (d->nstacks > 0)
        n += put_frames(b + n, cap - n, &d->stacks[0]);
    if (d->lock != NULL && d->holder_tid != 0)
        n += cg_fmt(b + n, cap - n, "lock: the %s at %p, held by thread tid %d\n", d->lock,
                    d->addr, (int)d->holder_tid);
    else if (d->lock != NULL)
        n += cg_fmt(b + n, cap - n, "lock: the %s at %p, held by a thread not known (none "
                    "noted itself as the holder)\n", d->lock, d->addr);
    if (d->has_block) {
        const char *u = d->block, *p = d->addr;
        if (p < u)
            n += cg_fmt(b + n, cap - n, "%p is %zu bytes before ", d->addr, (size_t)(u - p));
        else if (p >= u + d->block_size)
            n += cg_fmt(b + n, cap - n, "%p is %zu bytes past the end of ", d->addr,
                        (size_t)(p - u - d->block_size));
        else
            n += cg_fmt(b + n, cap - n, "%p is %zu bytes inside ", d->addr, (size_t)(p - u));
        n += cg_fmt(b + n, cap - n, "a %zu-byte %sregion [%p, %p) from %s()%s\n", d->block_size,
                    d->block_freed ? "freed " : "", d->block, u + d->block_size, d->block_kind,
                    d->block_guarded == CG_RBLOCK_SLOT ? ", in a guard slot (sampled)"
                    : d->block_guarded   ? ", on guard pages of its own"
                    : d->block_unguarded ? ", a debug-mode block (guard mode had no pages "
                                           "left for it)"
                                         : "");
    }
    for (size_t i = 1; i < d->nstacks; i++) {
        if (d->stacks[i].tid >= 0)
            n += cg_fmt(b + n, cap - n, "%s by thread T%d here:\n", d->stacks[i].title,
                        d->stacks[i].tid);
        else
            n += cg_fmt(b + n, cap - n, "%s here:\n", d->stacks[i].title);
        n += put_frames(b + n, cap - n, &d->stacks[i]);
    }
    memcpy(b + n, tail, tn + 1);
    return n + tn;
}

/* ---- JSON ------------------------------------------------------------- */

typedef struct jw {
    char *b;
    size_t n, cap;
} jw_t;

static void jraw(jw_t *w, const char *s)
{
    while (*s && w->n + 1 < w->cap)
        w->b[w->n++] = *s++;
    w->b[w->n] = 0;
}

static void jstr(jw_t *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    jraw(w, "\"");
    for (; *s && w->n + 8 < w->cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            w->b[w->n++] = '\\';
            w->b[w->n++] = (char)c;
        } else if (c == '\n') {
            w->b[w->n++] = '\\';
            w->b[w->n++] = 'n';
        } else if (c < 0x20) {
            w->n += cg_fmt(w->b + w->n, w->cap - w->n, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        } else {
            w->b[w->n++] = (char)c;
        }
    }
    w->b[w->n] = 0;
    jraw(w, "\"");
}

static void jfmt_hex(jw_t *w, uintptr_t v)
{
    char t[32];
    cg_fmt(t, sizeof t, "\"%p\"", (void *)v);
    jraw(w, t);
}

static void jnum(jw_t *w, long long v)
{
    char t[32];
    if (v < 0)
        cg_fmt(t, sizeof t, "-%zu", (size_t)-v);
    else
        cg_fmt(t, sizeof t, "%zu", (size_t)v);
    jraw(w, t);
}

/* ,"file":..,"line":.. of a symbolizer's answer (null, null without). */
static void jsym_place(jw_t *w, const cg_sym_inline_t *fr)
{
    jraw(w, ",\"file\":");
    if (fr != NULL && fr->file != NULL)
        jstr(w, fr->file);
    else
        jraw(w, "null");
    jraw(w, ",\"line\":");
    if (fr != NULL && fr->file != NULL && fr->line != 0)
        jnum(w, fr->line);
    else
        jraw(w, "null");
}

/* Frames, and a frame's inlined functions, stop early rather than leave
 * the object cut: JSON_ROOM bytes are kept for what follows each (a
 * frame: its module path, at most CG_SYM_MODULE_MAX, two names of at most
 * CG_SYM_FUNC_MAX and its file, at most 4 KiB from the symbolizer, about
 * 9 KiB; an inlined function: a name and a file of at most 4 KiB each;
 * then the rest of the object, the closing of its stacks). */
#define JSON_ROOM (12 * 1024)
static void jstack(jw_t *w, const cg_rstack_t *s)
{
    jraw(w, "[");
    for (size_t i = 0; i < s->n && w->n + JSON_ROOM < w->cap; i++) {
        cg_frame_t f;
        cg_frame_named(s->pcs[i], i > 0 || !s->exact0, &f);
        jraw(w, i ? ",{\"pc\":" : "{\"pc\":");
        jfmt_hex(w, f.pc);               /* as the text: a return address - 1 */
        jraw(w, ",\"module\":");
        jstr(w, f.module);
        jraw(w, ",\"offset\":");
        jfmt_hex(w, f.offset);
        const cg_sym_inline_t *fr;
        size_t nfr = cg_sym_lookup(s->pcs[i], i > 0 || !s->exact0, &fr);
        const cg_sym_inline_t *own = nfr ? &fr[nfr - 1] : NULL;   /* the code's function */
        /* the symbol table's name first, demangled, as without a
         * symbolizer and as the text shows it, else the symbolizer's
         * (cg_frame_named); then the table's own spelling, mangled: the
         * name the dedup hash reads */
        jraw(w, ",\"function\":");
        if (f.function[0])
            jstr(w, f.function);
        else
            jraw(w, "null");
        jraw(w, ",\"symbol\":");    /* the table's (mangled) name: the hash's */
        if (f.symbol[0])
            jstr(w, f.symbol);
        else
            jraw(w, "null");
        jsym_place(w, own);
        /* a frame with no symbol in a file: the function's size and the
         * frame's offset in it by call frame information (the dedup
         * hash's, dedup.h); null when it has a symbol or no such table */
        size_t in_fn = 0, fn_size = 0;
        bool code = f.symbol[0] == 0 && f.in_module && f.module[0] == '/' &&
                    cg_sym_code_range(f.pc, &in_fn, &fn_size);
        jraw(w, ",\"code_size\":");
        if (code)
            jnum(w, (long long)fn_size);
        else
            jraw(w, "null");
        jraw(w, ",\"code_offset\":");
        if (code)
            jnum(w, (long long)in_fn);
        else
            jraw(w, "null");
        jraw(w, ",\"inlined\":[");
        for (size_t k = 0; k + 1 < nfr && w->n + JSON_ROOM < w->cap; k++) {
            jraw(w, k ? ",{\"function\":" : "{\"function\":");
            if (fr[k].function != NULL)
                jstr(w, fr[k].function);
            else
                jraw(w, "null");
            jsym_place(w, &fr[k]);
            jraw(w, "}");
        }
        jraw(w, "]}");
    }
    jraw(w, "]");
}

/* The bytes around a debug-mode block, from its leading redzone to the
 * end of its trailing one, at most CG_JSON_MEM_MAX of them around the
 * reported address; copied with cg_os_copy_readable, so an unmapped page
 * cuts the dump short instead of faulting.  null without a layout. */
#define CG_JSON_MEM_MAX 256
static void jmemory(jw_t *w, const cg_rdata_t *d)
{
    static const char hex[] = "0123456789abcdef";
    if (!d->has_block || !d->has_layout) {
        jraw(w, "null");
        return;
    }
    uintptr_t u = (uintptr_t)d->block, a = (uintptr_t)d->addr;
    uintptr_t lo = u - d->lead_rz, hi = u + d->block_size + d->tail_rz;
    if (hi - lo > CG_JSON_MEM_MAX) {
        /* keep the reported address in view, with some bytes before it */
        uintptr_t from = a >= lo + 64 ? (a - 64) & ~(uintptr_t)15 : lo;
        if (from < lo)
            from = lo;
        if (from > hi - CG_JSON_MEM_MAX)
            from = hi - CG_JSON_MEM_MAX;
        lo = from;
        hi = from + CG_JSON_MEM_MAX;
    }
    unsigned char bytes[CG_JSON_MEM_MAX];
    size_t n = cg_os_copy_readable(bytes, (const void *)lo, hi - lo);
    jraw(w, "{\"address\":");
    jfmt_hex(w, lo);
    jraw(w, ",\"bytes\":\"");
    for (size_t i = 0; i < n && w->n + 4 < w->cap; i++) {
        w->b[w->n++] = hex[bytes[i] >> 4];
        w->b[w->n++] = hex[bytes[i] & 15];
    }
    w->b[w->n] = 0;
    jraw(w, "\",\"lead_redzone\":");
    jnum(w, (long long)d->lead_rz);
    jraw(w, ",\"trail_redzone\":");
    jnum(w, (long long)d->tail_rz);
    jraw(w, ",\"redzone_byte\":");
    jnum(w, d->redzone_byte);
    jraw(w, ",\"poison_byte\":");
    jnum(w, d->poison_byte);
    jraw(w, ",\"poison_length\":");
    jnum(w, d->block_freed ? (long long)d->poison_len : 0);
    jraw(w, ",\"cookie_length\":");
    jnum(w, (long long)d->cookie_len);
    jraw(w, "}");
}

static size_t render_json(char *b, size_t cap, const cg_rdata_t *d, const cg_dedup_t *k)
{
    jw_t w = { b, 0, cap };
    jraw(&w, "{\"kind\":");
    jstr(&w, cg_error_token(d->kind));
    jraw(&w, ",\"hash\":");
    jstr(&w, k->hex);
    jraw(&w, ",\"address\":");
    if (d->kind == CG_E_MEMORY_LEAK)
        jraw(&w, "null");               /* a group of blocks, no one address */
    else
        jfmt_hex(&w, (uintptr_t)d->addr);
    jraw(&w, ",\"pid\":");
    jnum(&w, cg_os_getpid());
    jraw(&w, ",\"exe\":");
    jstr(&w, cg_os_exe());
    jraw(&w, ",\"thread\":");
    if (d->tid >= 0)
        jnum(&w, d->tid);
    else
        jraw(&w, "null");
    jraw(&w, ",\"function\":");
    jstr(&w, d->op);
    jraw(&w, ",\"message\":");
    jstr(&w, d->message);
    jraw(&w, ",\"glibc\":");
    if (d->glibc)
        jstr(&w, d->glibc);
    else
        jraw(&w, "null");
    jraw(&w, ",\"size\":");
    if (d->has_block || d->kind == CG_E_MEMORY_LEAK)
        jnum(&w, (long long)d->block_size);
    else
        jraw(&w, "null");
    if (d->kind == CG_E_MEMORY_LEAK) {
        jraw(&w, ",\"objects\":");
        jnum(&w, (long long)d->objects);
        jraw(&w, ",\"not_shown\":");
        if (d->not_shown != NULL) {
            jraw(&w, "{\"groups\":");
            jnum(&w, (long long)d->not_shown->groups);
            jraw(&w, ",\"size\":");
            jnum(&w, (long long)d->not_shown->bytes);
            jraw(&w, ",\"objects\":");
            jnum(&w, (long long)d->not_shown->objects);
            jraw(&w, ",\"limit\":");
            jnum(&w, (long long)d->not_shown->limit);
            if (d->not_shown->at_least)
                jraw(&w, ",\"at_least\":true");
            jraw(&w, "}");
        } else {
            jraw(&w, "null");
        }
    }
    jraw(&w, ",\"offset\":");
    if (d->has_block)
        jnum(&w, (long long)((const char *)d->addr - (const char *)d->block));
    else
        jraw(&w, "null");
    jraw(&w, ",\"block\":");
    if (d->has_block) {
        jraw(&w, "{\"address\":");
        jfmt_hex(&w, (uintptr_t)d->block);
        jraw(&w, ",\"state\":");
        jstr(&w, d->block_freed ? "freed" : "live");
        jraw(&w, ",\"allocated_by\":");
        jstr(&w, d->block_kind);
        jraw(&w, ",\"guarded\":");
        jraw(&w, d->block_guarded ? "true" : "false");
        jraw(&w, ",\"sampled\":");
        jraw(&w, d->block_guarded == CG_RBLOCK_SLOT ? "true" : "false");
        jraw(&w, "}");
    } else {
        jraw(&w, "null");
    }
    jraw(&w, ",\"memory\":");
    jmemory(&w, d);
    jraw(&w, ",\"access\":");
    if (d->access != NULL) {
        jraw(&w, "{\"kind\":");
        if (d->access->kind)
            jstr(&w, d->access->kind);
        else
            jraw(&w, "null");
        jraw(&w, ",\"size\":");
        if (d->access->size)
            jnum(&w, (long long)d->access->size);
        else
            jraw(&w, "null");
        jraw(&w, ",\"address\":");
        if (d->access->addr_unknown)
            jraw(&w, "null");   /* a general-protection fault names none */
        else
            jfmt_hex(&w, (uintptr_t)d->addr);
        jraw(&w, ",\"pc\":");
        jfmt_hex(&w, d->access->pc);
        jraw(&w, "}");
    } else {
        jraw(&w, "null");
    }
    jraw(&w, ",\"lock\":");
    if (d->lock != NULL) {
        jraw(&w, "{\"name\":");
        jstr(&w, d->lock);
        jraw(&w, ",\"holder_tid\":");
        jnum(&w, d->holder_tid);
        jraw(&w, "}");
    } else {
        jraw(&w, "null");
    }
    jraw(&w, ",\"stacks\":{");
    for (size_t i = 0; i < d->nstacks; i++) {
        if (i)
            jraw(&w, ",");
        jstr(&w, cg_rstack_name(d, i));
        jraw(&w, ":{\"thread\":");
        if (d->stacks[i].tid >= 0)
            jnum(&w, d->stacks[i].tid);
        else
            jraw(&w, "null");
        jraw(&w, ",\"frames\":");
        jstack(&w, &d->stacks[i]);
        jraw(&w, "}");
    }
    jraw(&w, "}}\n");
    return w.n;
}

/* ---- emit ------------------------------------------------------------- */

/* The report the report lock's holder (cur_tid) is in the middle of in
 * emit_body, for cg_render_finish: its arguments, how far it got
 * (CUR_*), and the bytes of tbuf rendered so far (the head; then the
 * whole text).  CUR_STACKS: nothing rendered, its stacks being
 * symbolized first (suppressions loaded); CUR_DONE: written and
 * published, handed to the callback. */
enum { CUR_STACKS = 1, CUR_HEAD, CUR_TEXT, CUR_WRITTEN, CUR_DONE };
static const struct emit_args *cur;
static uint32_t cur_tid;
static size_t cur_len;
static uint8_t cur_stage;

static void cur_at(uint8_t stage, size_t len)
{
    CG_SIGNAL_FENCE();
    cur_len = len;
    cur_stage = stage;
    CG_SIGNAL_FENCE();
}

static void cur_clear(void)
{
    CG_SIGNAL_FENCE();
    cur = NULL;
    CG_SIGNAL_FENCE();
}

/* report_path could not be opened: warned of once (cg_path_open_warn). */
static int report_path_warned;

static void append_json(const char *b, size_t n)
{
    cg_path_write("report_path", cg_opt.report_path, b, n, true, &report_path_warned);
}

/* JSON to report_path and the callback (k: d's dedup hash); true when a
 * callback ran.  Caller holds the report lock. */
static bool publish(const cg_rdata_t *d, const char *text, bool recoverable,
                    const cg_dedup_t *k)
{
    cg_report_callback_t cb = __atomic_load_n(&callback, __ATOMIC_ACQUIRE);
    size_t jn = 0;
    if (cg_opt.report_path[0] != 0 || cb != NULL)
        jn = render_json(jbuf, sizeof jbuf, d, k);
    if (cg_opt.report_path[0] != 0)
        append_json(jbuf, jn);
    if (cb == NULL)
        return false;
    cur_at(CUR_DONE, cur_len);            /* the rest is the callback's */
    cg_report_t pub = {
        .kind = cg_error_token(d->kind), .address = d->addr, .text = text,
        .json = jbuf, .pid = cg_os_getpid(), .thread = d->tid,
        .recoverable = recoverable,
    };
    cg_vg_loud();                         /* the callback is the program's code */
    cb(&pub, __atomic_load_n(&callback_arg, __ATOMIC_RELAXED));
    cg_vg_quiet_begin();                  /* chunkguard's again, till its entry ends */
    return true;
}

typedef struct publish_args {
    const cg_rdata_t *d;
    const char *text;
    const cg_dedup_t *k;
} publish_args_t;

static void publish_body(void *arg)
{
    const publish_args_t *a = arg;
    cg_report_enter();
    publish(a->d, a->text, true, a->k);
    cg_report_leave();
}

CG_REALIGN void cg_report_publish(const cg_rdata_t *d, const char *text, const cg_dedup_t *k)
{
    publish_args_t a = { d, text, k };
    cg_report_run(publish_body, &a);
}

/* Per thread (cg_self.report_head, in bits): the state of the report
 * this thread is writing.  Read before the report lock is taken
 * (head_once asks whether to take it), so it must not be shared: while
 * it was, a second thread faulting while the first one's head was out
 * took that for its own, wrote its report without the lock, into the
 * same text buffer, or made the first one think it was reporting twice
 * (58-guard guard-threads-fault-at-once, 10 of 100 runs under load).
 * CG_RHEAD_OUT: cg_report_emit_head rendered the first lines (in tbuf,
 * unwritten, head_len bytes) and holds the lock.  CG_RHEAD_HELD: it took
 * the report lock and left the first lines to emit_body: with
 * suppressions the stacks decide whether they are written. */
enum { CG_RHEAD_OUT = 1, CG_RHEAD_HELD = 2 };
static bool head_is(unsigned bit)
{
    return (cg_self.report_head & bit) != 0;
}
static void head_set(unsigned bit, bool on)
{
    cg_self.report_head = (uint8_t)(on ? cg_self.report_head | bit : cg_self.report_head & ~bit);
}
/* Only the report lock's holder, whose head it is, touches it. */
static size_t head_len;
/* Bytes of the head cg_render_flush_head wrote ahead of the rest (a step
 * that may block came next): emit_body and finish_body write the rest
 * only.  The report lock's holder's too. */
static size_t head_early;

/* The thread a report is about, whose hold on the report lock it must not
 * wait for: a lock report's holder (0: none). */
static uint32_t about_tid(const cg_rdata_t *d)
{
    return d->lock != NULL && d->holder_tid > 0 ? (uint32_t)d->holder_tid : 0;
}

CG_FORK_PATH void cg_render_after_fork_child(void)
{
    cg_self.report_head = 0;
    CG_CLEAR_IF_SET(head_len);
    CG_CLEAR_IF_SET(head_early);
}

void cg_render_went_on(void)
{
    cg_self.report_head = 0;
    head_len = 0;
    head_early = 0;
}

/* The head of d into tbuf; takes the report lock unless
 * cg_report_emit_head took it.  Returns the head's length.  Nothing is
 * written here: a report goes out with one write of head and body once
 * its stacks are unwound and symbolized, so that reports of several
 * processes on one stderr do not interleave (docs/reports.md). */
static size_t head_once(const cg_rdata_t *d)
{
    if (!head_is(CG_RHEAD_OUT) && !head_is(CG_RHEAD_HELD))
        cg_report_enter_about(about_tid(d));
    size_t head = render_head(tbuf, sizeof tbuf, d);
    cg_self.report_head = 0;
    head_len = 0;
    return head;
}

void cg_render_flush_head(void)
{
    if (head_is(CG_RHEAD_OUT) && head_len != 0) {
        cg_log_write(tbuf, head_len);
        head_early = head_len;
        head_len = 0;
    }
}

static void emit_head_body(void *arg)
{
    if (cg_supp_active()) {
        cg_report_enter_about(about_tid(arg));
        head_set(CG_RHEAD_HELD, true);
        return;
    }
    head_len = head_once(arg);
    head_set(CG_RHEAD_OUT, true);
}

CG_REALIGN void cg_report_emit_head(const cg_rdata_t *d)
{
    cg_report_run(emit_head_body, (void *)d);
}

typedef struct emit_args {
    const cg_rdata_t *d;
    bool recoverable, passing;
} emit_args_t;

/* Will the report end the process (not a passing one, nor one that
 * halt_on_error=0 or a callback lets the program go on from)? */
static bool is_fatal(const emit_args_t *a)
{
    return !a->passing &&
           !(a->recoverable && (!cg_opt.halt_on_error || cg_report_has_callback()));
}

static void finish_body(void *arg)
{
    int *fatal = arg;
    const emit_args_t *a = cur;
    if (a == NULL || cur_tid != cg_lock_me()) {
        cg_render_flush_head();         /* not in emit_body: the head at most */
        *fatal = -1;
        return;
    }
    uint8_t stage = cur_stage;
    cur_clear();
    if (stage == CUR_DONE) {
        *fatal = 0;
        return;
    }
    /* the frames from the symbol tables: the helper's answers may be
     * half-parsed, and waiting for it is what the exit cut short */
    cg_sym_batch_end();
    const cg_rdata_t *d = a->d;
    cg_dedup_t k;
    cg_dedup_compute(d, &k);
    if (stage == CUR_STACKS && k.rule >= 0 && a->recoverable) {
        cg_supp_count(k.rule, 0, 0);    /* suppressed: nothing to write */
        *fatal = 0;
        return;
    }
    size_t n = stage == CUR_STACKS ? render_head(tbuf, sizeof tbuf, d) : cur_len;
    size_t early = head_early < n ? head_early : n;
    head_early = 0;
    if (stage <= CUR_HEAD)
        n += render_rest(tbuf + n, sizeof tbuf - n, d, &k);
    if (stage <= CUR_TEXT)
        cg_log_write(tbuf + early, n - early);
    if (cg_opt.report_path[0] != 0)
        append_json(jbuf, render_json(jbuf, sizeof jbuf, d, &k));
    *fatal = is_fatal(a);
}

int cg_render_finish(void)
{
    int fatal = -1;
    cg_report_run(finish_body, &fatal);
    return fatal;
}

/* Open the calling thread's symbolizer batch with every stack of d and
 * run it; false when no batch opened (report/symbolize.h). */
static bool sym_batch(const cg_rdata_t *d)
{
    bool batch = cg_sym_batch_begin();
    for (size_t i = 0; batch && i < d->nstacks; i++)
        cg_sym_batch_add(d->stacks[i].pcs, d->stacks[i].n, d->stacks[i].exact0);
    if (batch)
        cg_sym_batch_run();
    return batch;
}

/* Write d; then end the process (see cg_report_emit), or return when
 * passing. */
static void emit_body(void *arg)
{
    const emit_args_t *a = arg;
    const cg_rdata_t *d = a->d;
    /* With suppressions loaded the stacks are symbolized before anything
     * is written: a suppressed report leaves no line.  Only a report the
     * process survives is suppressed (one that ends it is printed, with a
     * note). */
    cg_dedup_t k;
    bool known = cg_supp_active();
    /* one read of the maps for all of the report's frames (base/maps.h) */
    bool snap = cg_maps_snapshot_begin();
    /* Every frame of the report to the symbolizer at once: after the head
     * is out (a helper that hangs costs time, never the report), or first
     * when suppressions are loaded, whose patterns may name a source file. */
    bool batch = false;
    if (known) {
        /* the report lock is this thread's (emit_head_body): an exit from
         * a signal handler while the symbolizer runs writes the report
         * (cg_render_finish), or counts it as suppressed */
        if (head_is(CG_RHEAD_HELD)) {
            cur_tid = cg_lock_me();
            cur_at(CUR_STACKS, 0);
            cur = a;
        }
        batch = sym_batch(d);
        cg_dedup_compute(d, &k);
        if (k.rule >= 0 && a->recoverable) {
            cur_clear();
            cg_supp_count(k.rule, 0, 0);
            if (batch)
                cg_sym_batch_end();
            if (snap)
                cg_maps_snapshot_end();
            if (head_is(CG_RHEAD_HELD)) {
                head_set(CG_RHEAD_HELD, false);
                cg_report_leave();
            }
            return;
        }
    }
    size_t early = head_early;        /* (head_once clears the head state) */
    size_t head = head_once(d);
    if (early > head)
        early = head;
    /* holds the report lock now: a report the process will not survive
     * (not one a callback or halt_on_error=0 lets it go on from) */
    cg_report_mark_fatal(is_fatal(a));
    /* from here a signal handler that ends the process (exit, _exit)
     * gets the report written first (cg_render_finish) */
    cur_tid = cg_lock_me();
    cur_at(CUR_HEAD, head);
    cur = a;
    if (!known)
        batch = sym_batch(d);
    if (!known)
        cg_dedup_compute(d, &k);
    size_t tn = head + render_rest(tbuf + head, sizeof tbuf - head, d, &k);
    cur_at(CUR_TEXT, tn);
    head_early = 0;
    cg_log_write(tbuf + early, tn - early);
    cur_at(CUR_WRITTEN, tn);
    bool go_on = a->passing || (a->recoverable && !cg_opt.halt_on_error);
    bool called = publish(d, tbuf, a->recoverable, &k);
    cur_clear();
    if (batch)
        cg_sym_batch_end();
    if (snap)
        cg_maps_snapshot_end();
    if (called)
        go_on = a->recoverable || a->passing;
    if (go_on) {
        cg_report_leave();
        return;
    }
    cg_report_exit();
}

static void emit(const cg_rdata_t *d, bool recoverable, bool passing)
{
    emit_args_t a = { d, recoverable, passing };
    cg_report_run(emit_body, &a);
}

CG_REALIGN void cg_report_emit(const cg_rdata_t *d, bool recoverable)
{
    emit(d, recoverable, false);
}

CG_REALIGN void cg_report_emit_passing(const cg_rdata_t *d)
{
    emit(d, false, true);
}
