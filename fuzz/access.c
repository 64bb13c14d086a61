/*
 * access.c — the faults harness's access forms (access.h).
 *
 * Each instruction form is one small function: an optional change of the
 * stack (misaligned, or rsp and rbp pointing at unmapped memory, as after
 * a stack smash), the form's set-up, the one instruction that must fault,
 * written out as bytes (rdi: the address; rsi: the scratch buffer), and,
 * should it not fault, the stack put back.  Opcode facts from the Intel
 * SDM, volume 2; the sizes are what the instruction reads or writes, not
 * what cg_insn_access_size answers: the harness checks one against the
 * other.  The libc forms call memcpy, memmove and memset themselves.
 */
#define _GNU_SOURCE
#include "access.h"

#include <string.h>

/* r10: how (FZ_STACK_*), r11: val; r12 and r13 keep rsp and rbp. */
#define STACK_PRE                                                              \
    "mov %%rsp, %%r12\n\t"                                                     \
    "mov %%rbp, %%r13\n\t"                                                     \
    "cmp $1, %%r10\n\t"                                                        \
    "jne 1f\n\t"                                                               \
    "lea -512(%%rsp), %%rax\n\t"                                               \
    "and $-16, %%rax\n\t"                                                      \
    "sub %%r11, %%rax\n\t"                                                     \
    "mov %%rax, %%rsp\n\t"                                                     \
    "jmp 2f\n"                                                                 \
    "1:\n\t"                                                                   \
    "cmp $2, %%r10\n\t"                                                        \
    "jne 2f\n\t"                                                               \
    "mov %%r11, %%rsp\n\t"                                                     \
    "mov %%r11, %%rbp\n"                                                       \
    "2:\n\t"
#define STACK_POST "mov %%r12, %%rsp\n\t" "mov %%r13, %%rbp\n\t"

#define FORM(fn, setup, bytes, after)                                          \
    static __attribute__((noinline)) void fn(void *at, void *scratch, size_t len, long how, \
                                             long val)                         \
    {                                                                          \
        (void)len;                                                             \
        register long how_ __asm__("r10") = how;                               \
        register long val_ __asm__("r11") = val;                               \
        __asm__ volatile(STACK_PRE setup ".byte " bytes "\n\t" after STACK_POST \
                         : "+D"(at), "+S"(scratch), "+r"(how_), "+r"(val_)     \
                         :                                                     \
                         : "rax", "rcx", "rdx", "r8", "r9", "r12", "r13", "xmm0", "memory", \
                           "cc");                                              \
    }

#define NONE ""
#define SWAP "xchg %%rdi, %%rsi\n\t"       /* string reads: rsi is the address */
#define REP8 "mov $8, %%ecx\n\t"
#define EMMS "emms\n\t"
#define VZU  "vzeroupper\n\t"

/* plain loads and stores */
FORM(movzx8_load,   NONE, "0x0f,0xb6,0x07", NONE)          /* movzbl (%rdi),%eax   */
FORM(movsx8_load,   NONE, "0x0f,0xbe,0x07", NONE)          /* movsbl (%rdi),%eax   */
FORM(movzx16_load,  NONE, "0x0f,0xb7,0x07", NONE)          /* movzwl (%rdi),%eax   */
FORM(movsx16_load,  NONE, "0x0f,0xbf,0x07", NONE)          /* movswl (%rdi),%eax   */
FORM(mov8_load,     NONE, "0x8a,0x07", NONE)               /* mov (%rdi),%al       */
FORM(mov16_load,    NONE, "0x66,0x8b,0x07", NONE)          /* mov (%rdi),%ax       */
FORM(mov32_load,    NONE, "0x8b,0x07", NONE)               /* mov (%rdi),%eax      */
FORM(mov64_load,    NONE, "0x48,0x8b,0x07", NONE)          /* mov (%rdi),%rax      */
FORM(mov32_r9_load, "mov %%rdi, %%r9\n\t", "0x41,0x8b,0x01", NONE) /* mov (%r9),%eax (REX.B) */
FORM(ds_mov32_load, NONE, "0x3e,0x8b,0x07", NONE)          /* ds mov (%rdi),%eax   */
FORM(mov8_store,    NONE, "0x88,0x07", NONE)               /* mov %al,(%rdi)       */
FORM(mov16_store,   NONE, "0x66,0x89,0x07", NONE)          /* mov %ax,(%rdi)       */
FORM(mov32_store,   NONE, "0x89,0x07", NONE)               /* mov %eax,(%rdi)      */
FORM(mov64_store,   NONE, "0x48,0x89,0x07", NONE)          /* mov %rax,(%rdi)      */
FORM(mov8_imm,      NONE, "0xc6,0x07,0x5a", NONE)          /* movb $0x5a,(%rdi)    */
FORM(mov16_imm,     NONE, "0x66,0xc7,0x07,0x5a,0x00", NONE)           /* movw  */
FORM(mov32_imm,     NONE, "0xc7,0x07,0x5a,0,0,0", NONE)               /* movl  */
FORM(mov64_imm,     NONE, "0x48,0xc7,0x07,0x5a,0,0,0", NONE)          /* movq  */
/* compare, test and the ALU group */
FORM(cmp8_imm,      NONE, "0x80,0x3f,0x01", NONE)          /* cmpb $1,(%rdi)       */
FORM(cmp32_imm8,    NONE, "0x83,0x3f,0x01", NONE)          /* cmpl $1,(%rdi)       */
FORM(cmp64_imm32,   NONE, "0x48,0x81,0x3f,0x01,0,0,0", NONE)          /* cmpq  */
FORM(cmp8_rm,       NONE, "0x38,0x07", NONE)               /* cmp %al,(%rdi)       */
FORM(cmp32_rm,      NONE, "0x39,0x07", NONE)               /* cmp %eax,(%rdi)      */
FORM(cmp8_mr,       NONE, "0x3a,0x07", NONE)               /* cmp (%rdi),%al       */
FORM(cmp64_mr,      NONE, "0x48,0x3b,0x07", NONE)          /* cmp (%rdi),%rax      */
FORM(test8,         NONE, "0x84,0x07", NONE)               /* test %al,(%rdi)      */
FORM(test32,        NONE, "0x85,0x07", NONE)               /* test %eax,(%rdi)     */
FORM(add8_rmw,      NONE, "0x00,0x07", NONE)               /* add %al,(%rdi)       */
FORM(add32_rmw,     NONE, "0x01,0x07", NONE)               /* add %eax,(%rdi)      */
FORM(add8_load,     NONE, "0x02,0x07", NONE)               /* add (%rdi),%al       */
FORM(add32_load,    NONE, "0x03,0x07", NONE)               /* add (%rdi),%eax      */
FORM(or8_rmw,       NONE, "0x08,0x07", NONE)
FORM(or64_rmw,      NONE, "0x48,0x09,0x07", NONE)
FORM(or8_load,      NONE, "0x0a,0x07", NONE)
FORM(or32_load,     NONE, "0x0b,0x07", NONE)
FORM(and8_rmw,      NONE, "0x20,0x07", NONE)
FORM(and32_rmw,     NONE, "0x21,0x07", NONE)
FORM(and8_load,     NONE, "0x22,0x07", NONE)
FORM(and16_load,    NONE, "0x66,0x23,0x07", NONE)
FORM(sub8_rmw,      NONE, "0x28,0x07", NONE)
FORM(sub32_rmw,     NONE, "0x29,0x07", NONE)
FORM(sub8_load,     NONE, "0x2a,0x07", NONE)
FORM(sub32_load,    NONE, "0x2b,0x07", NONE)
FORM(xor8_rmw,      NONE, "0x30,0x07", NONE)
FORM(xor32_rmw,     NONE, "0x31,0x07", NONE)
FORM(xor8_load,     NONE, "0x32,0x07", NONE)
FORM(xor64_load,    NONE, "0x48,0x33,0x07", NONE)
FORM(or8_imm_rmw,   NONE, "0x80,0x0f,0x01", NONE)          /* orb $1,(%rdi)        */
FORM(add32_imm_rmw, NONE, "0x81,0x07,0x01,0,0,0", NONE)    /* addl $1,(%rdi)       */
FORM(add64_imm8_rmw, NONE, "0x48,0x83,0x07,0x01", NONE)    /* addq $1,(%rdi)       */
FORM(xchg8,         NONE, "0x86,0x07", NONE)               /* xchg %al,(%rdi)      */
FORM(xchg64,        NONE, "0x48,0x87,0x07", NONE)          /* xchg %rax,(%rdi)     */
FORM(inc8,          NONE, "0xfe,0x07", NONE)               /* incb (%rdi)          */
FORM(dec8,          NONE, "0xfe,0x0f", NONE)               /* decb (%rdi)          */
FORM(inc16,         NONE, "0x66,0xff,0x07", NONE)          /* incw (%rdi)          */
FORM(inc32,         NONE, "0xff,0x07", NONE)               /* incl (%rdi)          */
FORM(dec64,         NONE, "0x48,0xff,0x0f", NONE)          /* decq (%rdi)          */
FORM(lock_inc32,    NONE, "0xf0,0xff,0x07", NONE)          /* lock incl (%rdi)     */
FORM(push_mem,      "lea -128(%%rsp), %%rsp\n\t", "0xff,0x37", "pop %%rax\n\t") /* pushq (%rdi) */
/* string moves and stores, once and with rep */
FORM(movs8_read,    SWAP, "0xa4", NONE)                    /* movsb                */
FORM(movs16_read,   SWAP, "0x66,0xa5", NONE)               /* movsw                */
FORM(movs32_read,   SWAP, "0xa5", NONE)                    /* movsl                */
FORM(movs64_read,   SWAP, "0x48,0xa5", NONE)               /* movsq                */
FORM(movs8_write,   NONE, "0xa4", NONE)
FORM(movs64_write,  NONE, "0x48,0xa5", NONE)
FORM(stos8,         NONE, "0xaa", NONE)                    /* stosb                */
FORM(stos16,        NONE, "0x66,0xab", NONE)               /* stosw                */
FORM(stos32,        NONE, "0xab", NONE)                    /* stosl                */
FORM(stos64,        NONE, "0x48,0xab", NONE)               /* stosq                */
FORM(rep_movs8_read, REP8 SWAP, "0xf3,0xa4", NONE)         /* rep movsb            */
FORM(rep_movs8_write, REP8, "0xf3,0xa4", NONE)
FORM(rep_movs64_read, REP8 SWAP, "0xf3,0x48,0xa5", NONE)   /* rep movsq            */
FORM(rep_stos8,     REP8, "0xf3,0xaa", NONE)               /* rep stosb            */
FORM(rep_stos64,    REP8, "0xf3,0x48,0xab", NONE)          /* rep stosq            */
FORM(lods8,         SWAP, "0xac", NONE)                    /* lodsb: not decoded   */
/* SSE and MMX moves */
FORM(movups_load,   NONE, "0x0f,0x10,0x07", NONE)          /* movups (%rdi),%xmm0  */
FORM(movups_store,  NONE, "0x0f,0x11,0x07", NONE)
FORM(movupd_load,   NONE, "0x66,0x0f,0x10,0x07", NONE)
FORM(movss_load,    NONE, "0xf3,0x0f,0x10,0x07", NONE)
FORM(movss_store,   NONE, "0xf3,0x0f,0x11,0x07", NONE)
FORM(movsd_load,    NONE, "0xf2,0x0f,0x10,0x07", NONE)
FORM(movsd_store,   NONE, "0xf2,0x0f,0x11,0x07", NONE)
FORM(movaps_load,   NONE, "0x0f,0x28,0x07", NONE)
FORM(movaps_store,  NONE, "0x0f,0x29,0x07", NONE)
FORM(movapd_load,   NONE, "0x66,0x0f,0x28,0x07", NONE)
FORM(movntps,       NONE, "0x0f,0x2b,0x07", NONE)
FORM(movntdq,       NONE, "0x66,0x0f,0xe7,0x07", NONE)
FORM(movdqa_load,   NONE, "0x66,0x0f,0x6f,0x07", NONE)
FORM(movdqa_store,  NONE, "0x66,0x0f,0x7f,0x07", NONE)
FORM(movdqu_load,   NONE, "0xf3,0x0f,0x6f,0x07", NONE)
FORM(movdqu_store,  NONE, "0xf3,0x0f,0x7f,0x07", NONE)
FORM(movd_load,     NONE, "0x66,0x0f,0x6e,0x07", NONE)     /* movd (%rdi),%xmm0    */
FORM(movq_w_load,   NONE, "0x66,0x48,0x0f,0x6e,0x07", NONE)
FORM(movd_store,    NONE, "0x66,0x0f,0x7e,0x07", NONE)
FORM(movq_w_store,  NONE, "0x66,0x48,0x0f,0x7e,0x07", NONE)
FORM(movq_f3_load,  NONE, "0xf3,0x0f,0x7e,0x07", NONE)     /* movq (%rdi),%xmm0    */
FORM(movq_d6_store, NONE, "0x66,0x0f,0xd6,0x07", NONE)     /* movq %xmm0,(%rdi)    */
FORM(movlps_load,   NONE, "0x0f,0x12,0x07", NONE)
FORM(movlps_store,  NONE, "0x0f,0x13,0x07", NONE)
FORM(movhps_load,   NONE, "0x0f,0x16,0x07", NONE)
FORM(movhpd_store,  NONE, "0x66,0x0f,0x17,0x07", NONE)
FORM(movddup_load,  NONE, "0xf2,0x0f,0x12,0x07", NONE)     /* SSE3: 8 bytes        */
FORM(movsldup_load, NONE, "0xf3,0x0f,0x12,0x07", NONE)     /* SSE3: 16, aligned    */
FORM(movshdup_load, NONE, "0xf3,0x0f,0x16,0x07", NONE)     /* SSE3: 16, aligned    */
FORM(movnti32,      NONE, "0x0f,0xc3,0x07", NONE)          /* movnti %eax,(%rdi)   */
FORM(movq_mm_load,  NONE, "0x0f,0x6f,0x07", EMMS)          /* movq (%rdi),%mm0     */
FORM(movq_mm_store, NONE, "0x0f,0x7f,0x07", EMMS)
FORM(movd_mm_load,  NONE, "0x0f,0x6e,0x07", EMMS)
FORM(movntq,        NONE, "0x0f,0xe7,0x07", EMMS)
FORM(flds,          NONE, "0xd9,0x07", "fstp %%st(0)\n\t") /* x87: not decoded     */
/* AVX (VEX) moves */
FORM(vmovups_x_load, NONE, "0xc5,0xf8,0x10,0x07", VZU)
FORM(vmovups_y_load, NONE, "0xc5,0xfc,0x10,0x07", VZU)
FORM(vmovups_y_store, NONE, "0xc5,0xfc,0x11,0x07", VZU)
FORM(vmovss_load,   NONE, "0xc5,0xfa,0x10,0x07", VZU)
FORM(vmovsd_store,  NONE, "0xc5,0xfb,0x11,0x07", VZU)
FORM(vmovaps_y_load, NONE, "0xc5,0xfc,0x28,0x07", VZU)
FORM(vmovaps_x_store, NONE, "0xc5,0xf8,0x29,0x07", VZU)
FORM(vmovntps_x,    NONE, "0xc5,0xf8,0x2b,0x07", VZU)
FORM(vmovntdq_y,    NONE, "0xc5,0xfd,0xe7,0x07", VZU)
FORM(vmovdqu_x_load, NONE, "0xc5,0xfa,0x6f,0x07", VZU)
FORM(vmovdqu_y_load, NONE, "0xc5,0xfe,0x6f,0x07", VZU)
FORM(vmovdqu_y_store, NONE, "0xc5,0xfe,0x7f,0x07", VZU)
FORM(vmovdqa_y_load, NONE, "0xc5,0xfd,0x6f,0x07", VZU)
FORM(vmovdqa_x_store, NONE, "0xc5,0xf9,0x7f,0x07", VZU)
FORM(vmovd_load,    NONE, "0xc5,0xf9,0x6e,0x07", VZU)
FORM(vmovq_w_load,  NONE, "0xc4,0xe1,0xf9,0x6e,0x07", VZU)
FORM(vmovd_store,   NONE, "0xc5,0xf9,0x7e,0x07", VZU)
FORM(vmovq_w_store, NONE, "0xc4,0xe1,0xf9,0x7e,0x07", VZU)
FORM(vmovq_f3_load, NONE, "0xc5,0xfa,0x7e,0x07", VZU)      /* vmovq (%rdi),%xmm0   */
FORM(vmovq_d6_store, NONE, "0xc5,0xf9,0xd6,0x07", VZU)
FORM(vmovdqu_r8_load, "mov %%rdi, %%r8\n\t", "0xc4,0xc1,0x7e,0x6f,0x00", VZU) /* (%r8),%ymm0 */
FORM(vbroadcastss,  NONE, "0xc4,0xe2,0x79,0x18,0x07", VZU) /* 0f38 map: not decoded */
/* AVX-512 (EVEX) moves */
FORM(vmovdqu64_z_load, NONE, "0x62,0xf1,0xfe,0x48,0x6f,0x07", VZU)
FORM(vmovdqu64_y16_store, NONE, "0x62,0xe1,0xfe,0x28,0x7f,0x07", VZU)   /* %ymm16 */
FORM(vmovdqu32_x16_load, NONE, "0x62,0xe1,0x7e,0x08,0x6f,0x07", VZU)    /* %xmm16 */
FORM(vmovups_z_store, NONE, "0x62,0xf1,0x7c,0x48,0x11,0x07", VZU)
FORM(vmovss_x16_load, NONE, "0x62,0xe1,0x7e,0x08,0x10,0x07", VZU)
FORM(vmovsd_x16_store, NONE, "0x62,0xe1,0xff,0x08,0x11,0x07", VZU)
FORM(vmovaps_z_load, NONE, "0x62,0xf1,0x7c,0x48,0x28,0x07", VZU)
FORM(vmovntdq_z,    NONE, "0x62,0xf1,0x7d,0x48,0xe7,0x07", VZU)
FORM(vmovdqa64_z_load, NONE, "0x62,0xf1,0xfd,0x48,0x6f,0x07", VZU)
FORM(vmovdqu8_z_load, NONE, "0x62,0xf1,0x7f,0x48,0x6f,0x07", VZU)
FORM(vpbroadcastd_z, NONE, "0x62,0xf2,0x7d,0x48,0x58,0x07", VZU)       /* 0f38: not decoded */

/* libc's string functions over [at, at + len) (volatile: the call stays) */
static void *(*volatile libc_memcpy)(void *, const void *, size_t) = memcpy;
static void *(*volatile libc_memmove)(void *, const void *, size_t) = memmove;
static void *(*volatile libc_memset)(void *, int, size_t) = memset;

static void memcpy_read(void *at, void *scratch, size_t len, long how, long val)
{
    (void)how, (void)val;
    libc_memcpy(scratch, at, len);
}
static void memcpy_write(void *at, void *scratch, size_t len, long how, long val)
{
    (void)how, (void)val;
    libc_memcpy(at, scratch, len);
}
static void memmove_read(void *at, void *scratch, size_t len, long how, long val)
{
    (void)how, (void)val;
    libc_memmove(scratch, at, len);
}
static void memset_write(void *at, void *scratch, size_t len, long how, long val)
{
    (void)scratch, (void)how, (void)val;
    libc_memset(at, 0x5a, len);
}

#define F(fn, rw, size, align, cpu) { #fn, fn, rw, size, align, FZ_CPU_##cpu, false, false }
const fz_form_t fz_forms[] = {
    F(movzx8_load, 'R', 1, 1, ANY), F(movsx8_load, 'R', 1, 1, ANY),
    F(movzx16_load, 'R', 2, 1, ANY), F(movsx16_load, 'R', 2, 1, ANY),
    F(mov8_load, 'R', 1, 1, ANY), F(mov16_load, 'R', 2, 1, ANY), F(mov32_load, 'R', 4, 1, ANY),
    F(mov64_load, 'R', 8, 1, ANY), F(mov32_r9_load, 'R', 4, 1, ANY),
    F(ds_mov32_load, 'R', 4, 1, ANY),
    F(mov8_store, 'W', 1, 1, ANY), F(mov16_store, 'W', 2, 1, ANY), F(mov32_store, 'W', 4, 1, ANY),
    F(mov64_store, 'W', 8, 1, ANY), F(mov8_imm, 'W', 1, 1, ANY), F(mov16_imm, 'W', 2, 1, ANY),
    F(mov32_imm, 'W', 4, 1, ANY), F(mov64_imm, 'W', 8, 1, ANY),
    F(cmp8_imm, 'R', 1, 1, ANY), F(cmp32_imm8, 'R', 4, 1, ANY), F(cmp64_imm32, 'R', 8, 1, ANY),
    F(cmp8_rm, 'R', 1, 1, ANY), F(cmp32_rm, 'R', 4, 1, ANY), F(cmp8_mr, 'R', 1, 1, ANY),
    F(cmp64_mr, 'R', 8, 1, ANY), F(test8, 'R', 1, 1, ANY), F(test32, 'R', 4, 1, ANY),
    F(add8_rmw, 'M', 1, 1, ANY), F(add32_rmw, 'M', 4, 1, ANY), F(add8_load, 'R', 1, 1, ANY),
    F(add32_load, 'R', 4, 1, ANY), F(or8_rmw, 'M', 1, 1, ANY), F(or64_rmw, 'M', 8, 1, ANY),
    F(or8_load, 'R', 1, 1, ANY), F(or32_load, 'R', 4, 1, ANY), F(and8_rmw, 'M', 1, 1, ANY),
    F(and32_rmw, 'M', 4, 1, ANY), F(and8_load, 'R', 1, 1, ANY), F(and16_load, 'R', 2, 1, ANY),
    F(sub8_rmw, 'M', 1, 1, ANY), F(sub32_rmw, 'M', 4, 1, ANY), F(sub8_load, 'R', 1, 1, ANY),
    F(sub32_load, 'R', 4, 1, ANY), F(xor8_rmw, 'M', 1, 1, ANY), F(xor32_rmw, 'M', 4, 1, ANY),
    F(xor8_load, 'R', 1, 1, ANY), F(xor64_load, 'R', 8, 1, ANY),
    F(or8_imm_rmw, 'M', 1, 1, ANY), F(add32_imm_rmw, 'M', 4, 1, ANY),
    F(add64_imm8_rmw, 'M', 8, 1, ANY), F(xchg8, 'M', 1, 1, ANY), F(xchg64, 'M', 8, 1, ANY),
    F(inc8, 'M', 1, 1, ANY), F(dec8, 'M', 1, 1, ANY), F(inc16, 'M', 2, 1, ANY),
    F(inc32, 'M', 4, 1, ANY), F(dec64, 'M', 8, 1, ANY), F(lock_inc32, 'M', 4, 1, ANY),
    { "push_mem", push_mem, 'R', 8, 1, FZ_CPU_ANY, false, true },
    F(movs8_read, 'R', 1, 1, ANY), F(movs16_read, 'R', 2, 1, ANY), F(movs32_read, 'R', 4, 1, ANY),
    F(movs64_read, 'R', 8, 1, ANY), F(movs8_write, 'W', 1, 1, ANY),
    F(movs64_write, 'W', 8, 1, ANY), F(stos8, 'W', 1, 1, ANY), F(stos16, 'W', 2, 1, ANY),
    F(stos32, 'W', 4, 1, ANY), F(stos64, 'W', 8, 1, ANY), F(rep_movs8_read, 'R', 1, 1, ANY),
    F(rep_movs8_write, 'W', 1, 1, ANY), F(rep_movs64_read, 'R', 8, 1, ANY),
    F(rep_stos8, 'W', 1, 1, ANY), F(rep_stos64, 'W', 8, 1, ANY), F(lods8, 'R', 0, 1, ANY),
    F(movups_load, 'R', 16, 1, ANY), F(movups_store, 'W', 16, 1, ANY),
    F(movupd_load, 'R', 16, 1, ANY), F(movss_load, 'R', 4, 1, ANY),
    F(movss_store, 'W', 4, 1, ANY), F(movsd_load, 'R', 8, 1, ANY), F(movsd_store, 'W', 8, 1, ANY),
    F(movaps_load, 'R', 16, 16, ANY), F(movaps_store, 'W', 16, 16, ANY),
    F(movapd_load, 'R', 16, 16, ANY), F(movntps, 'W', 16, 16, ANY), F(movntdq, 'W', 16, 16, ANY),
    F(movdqa_load, 'R', 16, 16, ANY), F(movdqa_store, 'W', 16, 16, ANY),
    F(movdqu_load, 'R', 16, 1, ANY), F(movdqu_store, 'W', 16, 1, ANY),
    F(movd_load, 'R', 4, 1, ANY), F(movq_w_load, 'R', 8, 1, ANY), F(movd_store, 'W', 4, 1, ANY),
    F(movq_w_store, 'W', 8, 1, ANY), F(movq_f3_load, 'R', 8, 1, ANY),
    F(movq_d6_store, 'W', 8, 1, ANY), F(movlps_load, 'R', 8, 1, ANY),
    F(movlps_store, 'W', 8, 1, ANY), F(movhps_load, 'R', 8, 1, ANY),
    F(movhpd_store, 'W', 8, 1, ANY), F(movddup_load, 'R', 8, 1, SSE3),
    F(movsldup_load, 'R', 16, 16, SSE3), F(movshdup_load, 'R', 16, 16, SSE3),
    F(movnti32, 'W', 0, 1, ANY), F(movq_mm_load, 'R', 8, 1, ANY),
    F(movq_mm_store, 'W', 8, 1, ANY), F(movd_mm_load, 'R', 4, 1, ANY), F(movntq, 'W', 8, 1, ANY),
    F(flds, 'R', 0, 1, ANY),
    F(vmovups_x_load, 'R', 16, 1, AVX), F(vmovups_y_load, 'R', 32, 1, AVX),
    F(vmovups_y_store, 'W', 32, 1, AVX), F(vmovss_load, 'R', 4, 1, AVX),
    F(vmovsd_store, 'W', 8, 1, AVX), F(vmovaps_y_load, 'R', 32, 32, AVX),
    F(vmovaps_x_store, 'W', 16, 16, AVX), F(vmovntps_x, 'W', 16, 16, AVX),
    F(vmovntdq_y, 'W', 32, 32, AVX), F(vmovdqu_x_load, 'R', 16, 1, AVX),
    F(vmovdqu_y_load, 'R', 32, 1, AVX), F(vmovdqu_y_store, 'W', 32, 1, AVX),
    F(vmovdqa_y_load, 'R', 32, 32, AVX), F(vmovdqa_x_store, 'W', 16, 16, AVX),
    F(vmovd_load, 'R', 4, 1, AVX), F(vmovq_w_load, 'R', 8, 1, AVX), F(vmovd_store, 'W', 4, 1, AVX),
    F(vmovq_w_store, 'W', 8, 1, AVX), F(vmovq_f3_load, 'R', 8, 1, AVX),
    F(vmovq_d6_store, 'W', 8, 1, AVX), F(vmovdqu_r8_load, 'R', 32, 1, AVX),
    F(vbroadcastss, 'R', 0, 1, AVX),
    F(vmovdqu64_z_load, 'R', 64, 1, AVX512F), F(vmovdqu64_y16_store, 'W', 32, 1, AVX512F),
    F(vmovdqu32_x16_load, 'R', 16, 1, AVX512F), F(vmovups_z_store, 'W', 64, 1, AVX512F),
    F(vmovss_x16_load, 'R', 4, 1, AVX512F), F(vmovsd_x16_store, 'W', 8, 1, AVX512F),
    F(vmovaps_z_load, 'R', 64, 64, AVX512F), F(vmovntdq_z, 'W', 64, 64, AVX512F),
    F(vmovdqa64_z_load, 'R', 64, 64, AVX512F), F(vmovdqu8_z_load, 'R', 64, 1, AVX512BW),
    F(vpbroadcastd_z, 'R', 0, 1, AVX512F),
    { "memcpy_read", memcpy_read, 'R', 0, 1, FZ_CPU_ANY, true, false },
    { "memcpy_write", memcpy_write, 'W', 0, 1, FZ_CPU_ANY, true, false },
    { "memmove_read", memmove_read, 'R', 0, 1, FZ_CPU_ANY, true, false },
    { "memset_write", memset_write, 'W', 0, 1, FZ_CPU_ANY, true, false },
};
const size_t fz_nforms = sizeof fz_forms / sizeof fz_forms[0];

bool fz_form_available(const fz_form_t *f)
{
    __builtin_cpu_init();
    switch (f->cpu) {
    case FZ_CPU_SSE3: return __builtin_cpu_supports("sse3");
    case FZ_CPU_AVX: return __builtin_cpu_supports("avx");
    case FZ_CPU_AVX512F: return __builtin_cpu_supports("avx512f");
    case FZ_CPU_AVX512BW: return __builtin_cpu_supports("avx512f") &&
                                 __builtin_cpu_supports("avx512bw");
    default: return true;
    }
}
