/*
 * render.h — one report, rendered two ways: the text people read (ASan's
 * layout) and one JSON object for machines (schema: docs/reports.md).
 *
 * Every report — the core's checks (report.c), debug mode's (debug.c) and
 * faults (fault.c) — fills a cg_rdata_t and hands it to cg_report_emit,
 * which writes the text to the log, appends the JSON object to report_path
 * (when set), calls the program's report callback (when set), and then
 * applies the exit policy.  No malloc anywhere: fixed buffers under the
 * report lock.
 */
#ifndef CG_RENDER_H
#define CG_RENDER_H

#include "chunkguard.h"
#include "report.h"

typedef struct cg_rstack {
    const char *title;          /* "freed", "previously allocated"; NULL for
                                 * where the error happened               */
    int tid;                    /* thread number, -1 when not known       */
    const uintptr_t *pcs;       /* return addresses, innermost first      */
    size_t n;
    const char *key;            /* its name in the JSON "stacks" object;
                                 * NULL: "where", "freed" or "allocated"  */
    bool exact0;                /* pcs[0] is a faulting instruction, not a
                                 * return address                         */
} cg_rstack_t;

/* A memory access that faulted (guard pages, sealed freed blocks). */
typedef struct cg_access {
    const char *kind;           /* "READ", "WRITE", or NULL: not known     */
    size_t size;                /* bytes accessed, 0: not known            */
    uintptr_t pc;               /* the faulting instruction                */
    void *ucontext;             /* the signal's context, to unwind from    */
    bool passing;               /* not ours: after the report the signal's
                                 * default action ends the process        */
    bool addr_unknown;          /* the fault gave no address (x86-64's
                                 * general-protection fault: a non-
                                 * canonical pointer); the report's
                                 * address is then not 0 but unknown      */
} cg_access_t;

/* cg_rdata_t's block_guarded: the values of debug/shadow.h's CG_GUARDED_*. */
enum { CG_RBLOCK_CHUNK = 0, CG_RBLOCK_RANGE = 1, CG_RBLOCK_SLOT = 2 };

/* The leak groups a leak report leaves out (debug/leaks.c): groups past
 * its limit of `limit`, with their bytes and blocks; `at_least`: more
 * distinct groups than could be counted, groups is a lower bound. */
typedef struct cg_leak_rest {
    size_t groups, bytes, objects, limit;
    bool at_least;
} cg_leak_rest_t;

typedef struct cg_rdata {
    cg_error_t kind;
    const void *addr;           /* the address the report is about        */
    bool addr_unknown;          /* a fault that named none (x86-64's
                                 * general-protection fault): the text
                                 * says so instead of printing addr; as
                                 * access->addr_unknown, for a report
                                 * with no access                         */
    const char *op;             /* API function being served              */
    const char *message;        /* what was found; may hold several lines */
    const char *glibc;          /* the corresponding glibc message or NULL */
    int tid;                    /* thread number, -1 when not known       */
    cg_rstack_t stacks[3];      /* [0]: where; then freed, allocated      */
    size_t nstacks;
    /* The block the address is in or near (debug mode), if known. */
    bool has_block;
    const void *block;          /* user pointer                           */
    size_t block_size;          /* requested bytes                        */
    bool block_freed;
    const char *block_kind;     /* "malloc", "calloc", ...                */
    uint8_t block_guarded;      /* on guard pages of its own: CG_RBLOCK_* */
    bool block_unguarded;       /* a debug block in guard mode (no pages
                                 * were left for it)                      */
    const cg_access_t *access;  /* the faulting access, or NULL           */
    /* The block's layout (debug mode's chunk blocks), for the JSON
     * "memory" dump; has_layout false: no dump. */
    bool has_layout;
    size_t lead_rz;             /* leading redzone bytes before block     */
    size_t tail_rz;             /* trailing redzone bytes after its end   */
    unsigned char redzone_byte; /* the redzones' fill                     */
    unsigned char poison_byte;  /* a freed block's fill                   */
    size_t poison_len;          /* bytes of a freed block poisoned        */
    size_t cookie_len;          /* the leading redzone's last bytes that
                                 * read 0 (the array cookie, debug.h)     */
    size_t objects;             /* memory-leak: blocks in the group (their
                                 * bytes are block_size, has_block false) */
    const struct cg_leak_rest *not_shown; /* memory-leak: the groups past
                                 * the report's limit, or NULL (JSON null) */
    /* Lock reports (deadlock, lock-wait-timeout, lock-order-inversion). */
    const char *lock;           /* the lock's name, NULL for other reports */
    long holder_tid;            /* kernel tid of its holder (0: none)     */
} cg_rdata_t;

/*
 * cg_report_emit - write a report (text to the log, JSON to report_path),
 * call the report callback, then end the process, unless recoverable is
 * true and halt_on_error=0 or a callback returned: then return, and the
 * caller leaves the bad block alone for good.  Takes the report lock
 * (cg_report_enter) itself.
 */
void cg_report_emit(const cg_rdata_t *d, bool recoverable) CG_COLD CG_HIDDEN;

/*
 * cg_report_emit_head - render the first lines of report d now (the ERROR
 * line, the access, the message: what needs no unwinding), taking the
 * report lock and keeping it; the cg_report_emit that must follow, with
 * the same d and its stacks filled in, writes the whole report (one
 * write: reports of processes sharing a stderr do not interleave) and
 * the JSON.  A fault while the stacks are gathered (a smashed stack) ends
 * in cg_render_flush_head, which writes those first lines before the
 * abort.
 */
void cg_report_emit_head(const cg_rdata_t *d) CG_COLD CG_HIDDEN;

/* A fault inside the calling thread's report, before its abort, or a step
 * of it that may block next (fast mode's priming of the unwinder, whose
 * dlopen waits for the loader's lock): write the first lines
 * cg_report_emit_head rendered, if they are still unwritten; the report's
 * write that follows leaves them out.  Async-signal-safe; no lock taken
 * (the thread holds the report lock). */
void cg_render_flush_head(void) CG_HIDDEN;

/* cg_report_emit, then return whatever the options say: for a fault
 * that the signal's default action will end (a wild pointer's SIGSEGV). */
void cg_report_emit_passing(const cg_rdata_t *d) CG_COLD CG_HIDDEN;

/* Is a report callback installed?  (A report it sees can be recoverable.) */
bool cg_report_has_callback(void) CG_HIDDEN;

/*
 * cg_report_publish - the machine half of a report whose text the caller
 * writes itself (a leak group): the JSON object to report_path and the
 * report callback (with text as its text), recoverable, no exit; k is d's
 * dedup hash (cg_dedup_compute, dedup.h).  Takes the report lock.
 */
struct cg_dedup;
void cg_report_publish(const cg_rdata_t *d, const char *text, const struct cg_dedup *k)
    CG_HIDDEN;

/* cg_set_report_callback and cg_describe (contracts in chunkguard.h;
 * call: cg_describe's, base/call.h). */
void cg_set_report_callback_impl(cg_report_callback_t cb, void *arg) CG_HIDDEN;
size_t cg_describe_impl(const void *addr, char *buf, size_t cap, const cg_call_t *call)
    CG_HIDDEN;

/* A fork child's reset (cg_report_after_fork_child): no report's first
 * lines are out. */
void cg_render_after_fork_child(void) CG_HIDDEN;
/*
 * cg_render_finish - the calling thread is ending the process (exit,
 * _exit: a signal handler's) in the middle of its own report: write what
 * the report has not written yet — the rest of the text, rendered now
 * with the symbol tables' names only (the symbolizer's batch is closed),
 * and the JSON to report_path (no callback).  Returns 1 when that report
 * was to end the process, 0 when not (halt_on_error=0, a callback), -1
 * when the thread was not that far (its first lines written, if
 * rendered).  Runs on a stack with CG_REPORT_ROOM.
 */
int cg_render_finish(void) CG_HIDDEN;
/* The calling thread, the report lock's holder, went on from its report
 * (report.c, cg_report_went_on): its head state forgotten. */
void cg_render_went_on(void) CG_HIDDEN;

#endif /* CG_RENDER_H */
