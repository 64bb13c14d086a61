/*
 * describe.h — faults on the memory chunkguard keeps inaccessible: the
 * part of a heap above its top chunk, and the guard pages around its
 * out-of-band structures and below each heap (describe.c).
 */
#ifndef CG_DESCRIBE_H
#define CG_DESCRIBE_H

#include "platform.h"

/*
 * cg_describe_edge_fault - report a fault of the program's code on memory
 * chunkguard keeps inaccessible, and end the process.
 * @addr:  the faulting address (si_addr)
 * @pc:    the faulting instruction
 * @write: the access wrote (1), read (0), or is not known (-1)
 * @uc:    the signal's context, the faulting stack is unwound from it
 * The report is heap-buffer-overflow (catalogue entry FAULT_OVERFLOW) when
 * a block ends within 1 MiB below addr — the last block of the heap whose
 * unused part addr is in, or the block (heap or big) just below the guard
 * page before a metadata mapping or a heap — saying how far past that
 * block's end addr is; debug mode names the block from its shadow record
 * (its requested size and allocation stack).  Otherwise it is a wild
 * access into chunkguard's metadata (segv, FAULT_WILD), for a guard page
 * after a metadata mapping too.  Returns, having done nothing, when addr
 * is none of these: the caller's other rules decide.  For the fault
 * handler (fault.c); reads only chunkguard's own metadata, each address
 * tested before it is read; takes the big-block registry lock, and in
 * debug mode the shadow lock for a big block's record.
 */
void cg_describe_edge_fault(const void *addr, uintptr_t pc, int write, void *uc) CG_HIDDEN;

#endif /* CG_DESCRIBE_H */
