/*
 * debugblock.h — what debug mode's blocks share with the other
 * instrumented blocks (guarded blocks, guard.c): the stack capture, thread
 * numbers, the free-time protocol and the reports that name a block.
 * Implemented in debug.c.  call: the call being served (base/call.h).
 */
#ifndef CG_DEBUGBLOCK_H
#define CG_DEBUGBLOCK_H

#include "checks.h"
#include "debug.h"
#include "insn.h"
#include "render.h"
#include "shadow.h"

/* The calling thread's stack (stack_depth frames, from the program's call
 * into chunkguard, call->caller) into the stack depot: its id, or 0 with
 * stack_depth=0.  Call before taking any chunkguard lock.  Out of line:
 * its frame and return address key the stack memo (stackmemo.h). */
uint32_t cg_dbg_capture(const cg_call_t *call) CG_HIDDEN CG_NOINLINE;

/* This thread's number for reports: T0 is the first thread that allocated. */
uint32_t cg_dbg_tid(bool mt) CG_HIDDEN;

/* The record mode (CG_MODE_DEBUG, or CG_MODE_INTERNAL for the loader's and
 * chunkguard's own blocks, never leaks) of a block allocated from caller. */
uint8_t cg_dbg_block_mode(uintptr_t caller) CG_HIDDEN;

/* Take the live block r (user pointer p) for freeing or moving: false,
 * after the report of check freed (a double free), when it was not live
 * or r is no longer p's record (the report then describes no record).
 * Thread-safe: one claim of a block wins; while another thread holds p's
 * record claimed (a free or realloc of p finishing, or for a moment a
 * stale free of the record's previous block), it waits (yields) and
 * tries again (verify/models/giveback.pml), unless the process is down to
 * one thread (a fork child: then it reports as a double free). */
bool cg_dbg_claim(const cg_call_t *call, cg_shadow_t *r, const void *p, cg_check_t freed)
    CG_HIDDEN;

/* The usable size of the live block r (user pointer p, looked up by
 * malloc_usable_size): its requested size; 0 after the report of check
 * freed when it is not live — or when r stopped being p's record while it
 * was read (p freed and gone: the report then describes no record).
 * Thread-safe, lock-free: r's state and size are read, then its binding
 * checked again. */
size_t cg_dbg_usable_of(const cg_call_t *call, const cg_shadow_t *r, const void *p,
                        cg_check_t freed) CG_HIDDEN;

/* Does the release of block r (user pointer p) by call match how it was
 * allocated?  The family first (base/call.h): a block that call's family
 * does not release is reported (alloc-dealloc-mismatch, unless
 * alloc_dealloc_mismatch=0), and the release goes on — the block itself
 * is sound.  Then, for a block of call's family, the arguments of a
 * sized or aligned release (sized: SIZE_MAX when none; salign: 0 when
 * none): a C23 sized free's (free-size-mismatch) or a sized or aligned
 * operator delete's (new-delete-type-mismatch) that do not match are
 * reported and false returned. */
bool cg_dbg_release_ok(const cg_call_t *call, const cg_shadow_t *r, const void *p, size_t sized,
                       size_t salign) CG_HIDDEN;

/*
 * cg_dbg_report - the report of check id (checks.def) about addr, with
 * detail (the numbers after the catalogue's sentence, or NULL) and, when r
 * is not NULL, the block's region and its free and allocation stacks;
 * "where" is the calling thread's stack from the program's call.  Returns
 * only when the report is recoverable (halt_on_error=0, or a report
 * callback returned).
 * cg_dbg_report_at - the same with the "where" stack given (nwhere frames,
 * innermost first) and, for a fault, the access that faulted; never
 * returns then, unless access->passing (the caller lets the signal's
 * default action end the process).  A fault's report with where NULL
 * writes its first lines, then unwinds the faulting stack from
 * access->ucontext.
 * cg_dbg_report_not_start - p, handed to free or realloc (use), or to
 * malloc_usable_size, is inside r's block but not its start.  When p is
 * an array cookie away from the start of a live block of another family
 * (delete[] of what plain new allocated, delete of what new[] did: the
 * compiler stepped over a cookie that was never there), that is the
 * report: alloc-dealloc-mismatch, not an interior pointer.
 * cg_dbg_report_not_p - a free, realloc or malloc_usable_size (use) of p
 * whose lookup found the record r, whose block does not start at p:
 * when r is in state 0 (being made for a new block where p's block was,
 * since freed and gone: its fields not settled) the report of check
 * freed (p released again) naming no record; else as
 * cg_dbg_report_not_start.  Thread-safe as the reports are (one at a
 * time); reads r's state once.
 */
void cg_dbg_report(const cg_call_t *call, cg_check_t id, const void *addr, const char *detail,
                   const cg_shadow_t *r) CG_COLD CG_HIDDEN;
void cg_dbg_report_at(const cg_call_t *call, cg_check_t id, const void *addr, const char *detail,
                      const cg_shadow_t *r, const uintptr_t *where, size_t nwhere,
                      const cg_access_t *access) CG_COLD CG_HIDDEN;
void cg_dbg_report_not_start(const cg_call_t *call, cg_use_t use, const void *p,
                             const cg_shadow_t *r) CG_COLD CG_HIDDEN;
void cg_dbg_report_not_p(const cg_call_t *call, cg_use_t use, const void *p,
                         const cg_shadow_t *r, cg_check_t freed) CG_COLD CG_HIDDEN;

/* The access of a fault at pc (write: a CG_ACCESS_* value of debug.h; uc:
 * the signal's context; passing: the default action follows the report).
 * The instruction's bytes give the access's size only when the fault was
 * not their own fetch and they can be read (a jump through a NULL or wild
 * pointer faults on its pc; a page may be executable but unreadable):
 * reading them then would fault again inside the handler. */
CG_INLINE cg_access_t cg_dbg_access(uintptr_t pc, int write, void *uc, bool passing)
{
    const unsigned char *insn = (const unsigned char *)pc;
    size_t size = write != CG_ACCESS_FETCH && cg_os_readable(insn) && cg_os_readable(insn + 14)
                      ? cg_insn_access_size(insn) : 0;
    return (cg_access_t){ write == CG_ACCESS_WRITE   ? "WRITE"
                          : write == CG_ACCESS_READ  ? "READ"
                          : write == CG_ACCESS_FETCH ? "EXECUTE" : NULL,
                          size, pc, uc, passing, false };
}

/* What p points at, from /proc/self/maps ("it is on this thread's
 * stack", ...), into msg.  Returns its length. */
size_t cg_dbg_describe_address(const void *p, char *msg, size_t cap) CG_COLD CG_HIDDEN;

#endif /* CG_DEBUGBLOCK_H */
