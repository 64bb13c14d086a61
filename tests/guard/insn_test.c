/*
 * insn_test.c — the access sizes cg_insn_access_size gives for the
 * instruction forms compilers and libc's string functions use (bytes as
 * objdump shows them for Debian 12's gcc and glibc).
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "insn.h"

static size_t size_of(const char *hex)
{
    unsigned char b[16] = { 0 };
    size_t n = 0;
    for (const char *p = hex; p[0] && p[1] && n < sizeof b; p += 2)
        sscanf(p, "%2hhx", &b[n++]);
    return cg_insn_access_size(b);
}

Test(insn, plain_moves)
{
    cr_expect_eq(size_of("0fb64701"), 1);      /* movzbl 0x1(%rdi),%eax    */
    cr_expect_eq(size_of("0fbe07"), 1);        /* movsbl (%rdi),%eax       */
    cr_expect_eq(size_of("0fb707"), 2);        /* movzwl (%rdi),%eax       */
    cr_expect_eq(size_of("8b4704"), 4);        /* mov 0x4(%rdi),%eax       */
    cr_expect_eq(size_of("488b07"), 8);        /* mov (%rdi),%rax          */
    cr_expect_eq(size_of("66893e"), 2);        /* mov %di,(%rsi)           */
    cr_expect_eq(size_of("c6470578"), 1);      /* movb $0x78,0x5(%rdi)     */
    cr_expect_eq(size_of("c70701000000"), 4);  /* movl $1,(%rdi)           */
    cr_expect_eq(size_of("48c70700000000"), 8);/* movq $0,(%rdi)           */
    cr_expect_eq(size_of("8807"), 1);          /* mov %al,(%rdi)           */
    cr_expect_eq(size_of("418b4510"), 4);      /* mov 0x10(%r13),%eax (REX.B) */
}

Test(insn, alu_and_indirect)
{
    cr_expect_eq(size_of("833f00"), 4);        /* cmpl $0,(%rdi)           */
    cr_expect_eq(size_of("48833f00"), 8);      /* cmpq $0,(%rdi)           */
    cr_expect_eq(size_of("800f01"), 1);        /* orb $1,(%rdi)            */
    cr_expect_eq(size_of("0107"), 4);          /* add %eax,(%rdi)          */
    cr_expect_eq(size_of("ff10"), 8);          /* call *(%rax)             */
    cr_expect_eq(size_of("ff07"), 4);          /* incl (%rdi)              */
    cr_expect_eq(size_of("f0ff07"), 4);        /* lock incl (%rdi)         */
}

Test(insn, vector_moves)
{
    cr_expect_eq(size_of("f30f6f06"), 16);     /* movdqu (%rsi),%xmm0      */
    cr_expect_eq(size_of("0f1107"), 16);       /* movups %xmm0,(%rdi)      */
    cr_expect_eq(size_of("f20f1007"), 8);      /* movsd (%rdi),%xmm0       */
    cr_expect_eq(size_of("660fd607"), 8);      /* movq %xmm0,(%rdi)        */
    cr_expect_eq(size_of("c5fe6f06"), 32);     /* vmovdqu (%rsi),%ymm0     */
    cr_expect_eq(size_of("c5fa7f07"), 16);     /* vmovdqu %xmm0,(%rdi)     */
    cr_expect_eq(size_of("62e1fe487f07"), 64); /* vmovdqu64 %zmm16,(%rdi)  */
    cr_expect_eq(size_of("62e1fe287f07"), 32); /* vmovdqu64 %ymm16,(%rdi)  */
    /* found by the faults harness (fuzz/access.c), which makes each form
     * fault and compares the report's size with the instruction's */
    cr_expect_eq(size_of("f30f1207"), 16);     /* movsldup (%rdi),%xmm0    */
    cr_expect_eq(size_of("f30f1607"), 16);     /* movshdup (%rdi),%xmm0    */
    cr_expect_eq(size_of("f20f1207"), 8);      /* movddup (%rdi),%xmm0     */
    cr_expect_eq(size_of("c5fa7e07"), 8);      /* vmovq (%rdi),%xmm0       */
    cr_expect_eq(size_of("c5f97e07"), 4);      /* vmovd %xmm0,(%rdi)       */
}

Test(insn, strings_and_unknown)
{
    cr_expect_eq(size_of("f3a4"), 1);          /* rep movsb                */
    cr_expect_eq(size_of("f348ab"), 8);        /* rep stos %rax,(%rdi)     */
    cr_expect_eq(size_of("0fae07"), 0);        /* fxsave: not decoded      */
    cr_expect_eq(size_of("d907"), 0);          /* flds: not decoded        */
}
