/*
 * stackmemo.h — debug mode's memo of whole stacks: a capture made again
 * from the same place in a program whose stack has not changed where the
 * unwinder reads it gives the stack id recorded the first time, without
 * walking the stack again.
 *
 * Why: unw_backtrace costs tens of instructions a frame even when its
 * frame cache knows every return address (docs/performance.md, "Stack
 * captures"), and a program that allocates in a loop captures the same
 * few stacks millions of times.  libunwind stays
 * the unwinder: every memoised stack is one it walked, and a memo is used
 * only while every stack word its walk read — each frame's return-address
 * slot, and each frame-pointer save slot it restored %rbp from, as
 * unw_step locates them (cg_stack_read_set) — still holds the value it
 * read.  The walk computes each frame's CFA from the one below and those
 * words, so the same start and the same words give the same frames.  The
 * start is the key: the call site into chunkguard, the thread, and the
 * address of the capture's own frame, which sits at a fixed distance below
 * the program's frame for one path through chunkguard.
 *
 * The one input not compared is the %rbp the program's frame had on entry
 * (chunkguard's own frames may reuse the register).  It matters only to a
 * frame whose CFA is %rbp-based that was entered at another depth while
 * the capture's frame landed at the same address, and whose old return
 * slot still holds the old return address; then a report would show the
 * earlier stack.  Accepted: a wrong stack in a report, never a missed
 * error.
 *
 * Filling a memo walks the stack a second time with unw_step (slow), so a
 * key is filled only after it missed 4 times, each refill of a memo that
 * went stale waits for twice as many misses, and a key whose memo keeps
 * going stale (a helper called from many places at one depth) is given up
 * after a few refills.  1024 entries, in 512 sets of two (a key may sit
 * in either entry of its set; a new key takes the one used less
 * recently), so two keys that share a set — the malloc's and the free's
 * of one loop, where the addresses of a run put them so — both keep their
 * memo: with one entry a key they evicted each other before either was
 * filled.  In one mapping made at the first use (about 1 MiB of address
 * space, touched where used).  Thread-safe: entries are written under a sequence number
 * (odd while written) and a reader that sees it change ignores the entry.
 */
#ifndef CG_STACKMEMO_H
#define CG_STACKMEMO_H

#include "platform.h"

/* Where a capture starts: see the file comment. */
typedef struct cg_memo_key {
    uintptr_t caller;   /* return address into the program (or, for a
                         * lock's site, the acquisition's)            */
    uintptr_t frame;    /* an address in the capturing function's frame */
    uintptr_t site;     /* the capturing function's return address    */
    uintptr_t tid;      /* chunkguard thread number                   */
} cg_memo_key_t;

/* The stack id memoised for k, or 0 (none, or stale).  A few loads per
 * frame; no lock, no atomic read-modify-write. */
uint32_t cg_stack_memo_find(const cg_memo_key_t *k) CG_HIDDEN;

/*
 * cg_stack_memo_note - after a capture that cg_stack_memo_find could not
 * answer: the n frames pcs got stack id `id` (pcs[0]: the frame the memo
 * covers from; n <= 32 or nothing is kept); pcs[first_prog] is the
 * program's first frame, those before it chunkguard's own (0 when the
 * stack starts in the program, and when unknown: every frame's %rbp slot
 * is then compared).  May fill the entry (a second walk, with
 * unw_step); call where a capture may run (no chunkguard lock held).
 */
void cg_stack_memo_note(const cg_memo_key_t *k, const uintptr_t *pcs, size_t n,
                        size_t first_prog, uint32_t id) CG_HIDDEN;

#endif /* CG_STACKMEMO_H */
