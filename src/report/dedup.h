/*
 * dedup.h — a report's stable hash, and suppressions (suppressions=FILE).
 *
 * The hash says which reports are "the same bug": equal across runs (ASLR
 * moves every address) and across rebuilds that do not change the
 * functions on top of the report's stack.  It is 64-bit FNV-1a (Fowler,
 * Noll and Vo's hash, as published: offset basis 0xcbf29ce484222325,
 * prime 0x100000001b3) over the bytes of
 *     <token> then, for each of the top CG_DEDUP_FRAMES frames kept,
 *     "\n" <module> ":" <symbol>, or for a frame with no symbol in a
 *     file's mapping "\n" <module> ":?" <size> "+" <off> (hex: the size
 *     of the function it is in and its offset there, by the module's call
 *     frame information, cg_sym_code_range: stable across runs and across
 *     rebuilds that move the function but do not change it, a stripped
 *     program's too), or "\n" <module> ":+0x" <offset in hex> when the
 *     module has no such table (stable across runs only); <module> is the basename
 *     without " (deleted)" and without a version after ".so"
 *     (libx.so.1.0.0 is libx.so)
 * where the token is the report's kind ("double-free", "memory-leak"),
 * and the stack is the report's main one: "where", or for a report whose
 * "where" is empty (a leak group) or found by the checks at exit (JSON
 * function "exit" or "_exit": its "where" is the exit path, the same for
 * all of them) "allocated", else "freed".  Frames kept:
 * those with a symbol, or else in a file's mapping (a module path
 * beginning "/") before the first frame with a symbol and in the module
 * of the first frame kept (so that libc's unnamed start-up code below a
 * stripped program's main is not hashed), whose module's basename does not begin with
 * "libchunkguard" and whose function does not begin with "cg_"
 * (chunkguard's own, as a shared object or linked in).  Three frames, as
 * ClusterFuzz's crash state: the function that went wrong and two
 * callers, so a bug reached from many call chains is still one.  Printed
 * as 16 lowercase hex digits; tools/chunkguard computes the same from the
 * JSON frames when a report carries no "hash" (docs/reports.md).
 *
 * Suppressions: a file of `token:pattern` lines, read once at init into a
 * static buffer (CG_SUPP_FILE_MAX bytes, CG_SUPP_RULES_MAX rules), without
 * malloc.  A report the process can survive whose kind matches a rule's
 * token and one of whose frames (in any of its stacks: where, freed,
 * allocated, ...) matches its pattern is
 * counted, not printed: no text, no JSON, no callback, no exit.  Patterns
 * follow LeakSanitizer's: matched anywhere in the function name, the
 * module's path or basename, the frame's source file, or the name or file
 * of a function inlined there (those from the symbolizer: none with
 * symbolize=0); `*` is any run of characters, a leading `^` and
 * a trailing `$` anchor the match.  Read-only after init: matching is
 * thread-safe; counters are atomic.
 */
#ifndef CG_DEDUP_H
#define CG_DEDUP_H

#include "render.h"
#include "symbolize.h"

#define CG_DEDUP_FRAMES   3              /* frames in the hash            */
#define CG_SUPP_FILE_MAX  (64 * 1024)    /* bytes of the file read        */
#define CG_SUPP_RULES_MAX 256            /* rules kept                    */
#define CG_DEDUP_TOP_MAX  (CG_DEDUP_FRAMES * (CG_SYM_FUNC_MAX + 4))

/* What cg_dedup_compute found about one report. */
typedef struct cg_dedup {
    uint64_t hash;                       /* the FNV-1a hash above         */
    char hex[17];                        /* it as 16 hex digits           */
    char top[CG_DEDUP_TOP_MAX];          /* the hashed functions, "a < b" */
    int rule;                            /* matching suppression, or -1   */
} cg_dedup_t;

/*
 * cg_dedup_compute - the hash of report d, and the first suppression rule
 * that matches it (-1 when none does, or none is loaded).  Symbolizes the
 * frames of d's main stack (no malloc; the symbolizer's cache is only
 * tried).  Thread-safe; fills *out whole.
 */
void cg_dedup_compute(const cg_rdata_t *d, cg_dedup_t *out) CG_HIDDEN;

/* The name of d's stack i in JSON ("where", "freed", "allocated", or its
 * own key). */
const char *cg_rstack_name(const cg_rdata_t *d, size_t i) CG_HIDDEN;

/*
 * cg_supp_init - read the file option suppressions names (called once at
 * init, options read).  A file that cannot be read, a line that is not
 * `token:pattern` (the token a report's, `leak` for memory-leak, or `*`
 * for any) and bytes beyond CG_SUPP_FILE_MAX each give a one-line warning
 * and are ignored; so are rules beyond CG_SUPP_RULES_MAX, with one warning
 * for them all (their count and the first one's line).
 */
void cg_supp_init(void) CG_HIDDEN;

/* Is any suppression loaded? */
bool cg_supp_active(void) CG_HIDDEN;

/* Count a report suppressed by rule (bytes, blocks: a leak group's, else
 * 0).  Async-signal-safe. */
void cg_supp_count(int rule, size_t bytes, size_t blocks) CG_HIDDEN;

/* Reports suppressed so far (a leak group counts as one). */
size_t cg_supp_total(void) CG_HIDDEN;

/* A fork child's reset: its counts start at zero (the parent's are the
 * parent's to give), its summary not yet written. */
void cg_supp_after_fork_child(void) CG_HIDDEN;

/*
 * cg_supp_summary - when a report was suppressed, write (once) to the log
 *     ==PID==chunkguard: N report(s) suppressed (suppressions=FILE):
 *         COUNT TOKEN:PATTERN[: B byte(s) in K allocation(s)]
 * one line per rule that matched, as LeakSanitizer's "Suppressions used".
 * At exit, and before a report ends the process.
 */
void cg_supp_summary(void) CG_HIDDEN;

#endif /* CG_DEDUP_H */
