/*
 * insn.h — the size of the memory access an x86_64 instruction makes, for
 * fault reports ("READ of size 4"), from its bytes.
 *
 * Only the common forms compilers emit for loads and stores are decoded:
 * mov, movzx/movsx, the ALU group with a memory operand (add, or, and,
 * sub, xor, cmp, test, xchg), mov and ALU immediates, string moves and
 * stores (movs, stos, also with rep), and the SSE/AVX moves (movd, movq,
 * movss, movsd, movups/movaps/movdqu/movdqa and their VEX and EVEX forms,
 * 16, 32 or 64 bytes), which is what memcpy and memset use.  Anything else is "not
 * known" (0), and the report says so.  Opcode facts from the Intel SDM,
 * volume 2 (the one-byte and two-byte opcode maps, appendix A).
 */
#ifndef CG_INSN_H
#define CG_INSN_H

#include "platform.h"

/* Bytes the instruction at pc reads or writes in memory (1 to 64), or 0
 * when the form is not one of those above.  pc must be the address of an
 * instruction that just faulted (its bytes are readable). */
size_t cg_insn_access_size(const unsigned char *pc) CG_HIDDEN;

#endif /* CG_INSN_H */
