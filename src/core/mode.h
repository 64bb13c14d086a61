/*
 * mode.h — the table of operations a mode provides (docs/design.md,
 * "Modes").
 *
 * The mode is chosen once, at init (entry/init.c, from the mode option),
 * and its table is copied into cg_mode; the exported functions
 * (entry/interpose.c, entry/api.c) do what every mode shares — the
 * re-entry mark, initialisation, the C contract's argument checks, the
 * operation count — and then call the table.  Nothing else asks which mode
 * is on: code below entry/ that must differ reads the table's flags.
 * Fast mode's table is core/fast.c, debug mode's debug/debug.c; a new
 * mode is one more table and one more name in the mode option
 * (docs/design.md, "Modes").
 *
 * Every operation is called inside (entry/reentry.h), with the core
 * initialised, and gets the call's context (base/call.h: caller, API
 * name, tcache, multi-threaded), which it hands on to whatever below may
 * report or take a lock.
 */
#ifndef CG_MODE_H
#define CG_MODE_H

#include "call.h"
#include "platform.h"

typedef struct cg_mode {
    const char *name;           /* the mode option's value                  */
    /* Threads get a tcache, whose hits the inline paths serve
     * (core/fastpath.h) without calling the table. */
    bool tcache;
    /* Blocks carry shadow records and stacks (debug/shadow.h): describe,
     * the heap check, the leak check and fault reports read them; lock
     * acquisitions are stacked and ordered (debug/lockdep.c); re-entrant
     * calls are reported; redzone, quarantine, detect_leaks and
     * halt_on_error act. */
    bool instrumented;
    /* Bytes from a heap chunk's memory to the pointer the program gets
     * (debug mode's leading redzone, CG_DBG_LEAD; 0 in fast mode): where
     * the core's reports look for the stale header of a block freed long
     * ago (alloc.c). */
    size_t block_lead;
    /* n bytes (n <= CG_MAX_REQUEST already checked for calloc: bytes is
     * nmemb * size without overflow).  NULL with errno ENOMEM. */
    void  *(*malloc)(size_t n, const cg_call_t *c);
    void  *(*calloc)(size_t bytes, const cg_call_t *c);
    /* align: a power of two (> 16: a real alignment), n within the
     * contract's bounds (entry/api.c checked both). */
    void  *(*memalign)(size_t align, size_t n, const cg_call_t *c);
    /* mem NULL: as malloc.  n == 0 frees mem and returns NULL (glibc
     * 2.36). */
    void  *(*realloc)(void *mem, size_t n, const cg_call_t *c);
    /* mem != NULL.  sized: the size a C23 sized free gave, or SIZE_MAX;
     * salign: its alignment, or 0.  A pointer that is no live block of
     * ours is reported. */
    void   (*free)(void *mem, size_t sized, size_t salign, const cg_call_t *c);
    /* mem != NULL: malloc_usable_size. */
    size_t (*usable)(void *mem, const cg_call_t *c);
    /* Once the process is fully started (the library's constructor), and
     * at exit (its destructor, before the stats file); may be NULL. */
    void   (*start)(void);
    void   (*at_exit)(void);
    /* The process ends by _exit or _Exit (no atexit handler, no
     * destructor runs): the checks at_exit makes of the blocks, without
     * what needs the program's cooperation (the leak check, flushing its
     * stdio), and in a forked child only of what the child freed (debug
     * mode); may be NULL. */
    void   (*at_exit_now)(void);
    /* Memory the program has freed that the mode still holds in the core
     * (debug mode's quarantine), which mallinfo counts as free: chunk
     * bytes in heaps, and bytes and blocks of big blocks; may be NULL.
     * Takes no lock. */
    void   (*held)(size_t *heap_bytes, size_t *big_bytes, size_t *big_blocks);
    /* A thread's first call into chunkguard, and its exit (not the main
     * thread's: the process's exit is at_exit); may be NULL. */
    void   (*thread_start)(void);
    void   (*thread_exit)(void);
} cg_mode_t;

/* The mode in force: a copy of its table, written once at init while
 * single-threaded, read without a lock after (mode.c). */
extern cg_mode_t cg_mode CG_HIDDEN;

/* The tables. */
extern const cg_mode_t cg_mode_fast CG_HIDDEN;    /* core/fast.c   */

#endif /* CG_MODE_H */
