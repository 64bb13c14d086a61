/*
 * access.h — the ways the faults harness makes its bad access (access.c):
 * x86_64 instruction forms written out as bytes, so that every compiler
 * builds the same instruction and the harness knows what the fault report
 * must say of it, and libc's string functions.
 */
#ifndef FUZZ_ACCESS_H
#define FUZZ_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

/* How the stack is when the access is made (fz_access_run's how). */
enum { FZ_STACK_AS_IS, FZ_STACK_MISALIGNED, FZ_STACK_SMASHED };

typedef struct fz_form {
    const char *name;
    /* Make the access at at (scratch: a buffer the string moves use for
     * their other side, len: the string functions' byte count).  how, val:
     * FZ_STACK_MISALIGNED with val bytes below a 16-byte boundary, or
     * FZ_STACK_SMASHED with rsp and rbp set to val, for the instruction
     * itself (the instruction forms only). */
    void (*run)(void *at, void *scratch, size_t len, long how, long val);
    char rw;            /* 'R' read, 'W' write, 'M' read-modify-write (the
                         * page-fault error code of those is the CPU's
                         * choice: READ or WRITE)                          */
    unsigned char size; /* bytes it touches: what "of size N" must say; 0
                         * for a form cg_insn_access_size does not decode
                         * (no size in the report)                         */
    unsigned char align;/* alignment its address needs                    */
    unsigned char cpu;  /* FZ_CPU_*: the feature it needs                 */
    bool libc;          /* a libc string function over [at, at + len):
                         * the fault is somewhere in it, and any decoded
                         * size will do                                    */
    bool stack;         /* it pushes: not with a smashed stack            */
} fz_form_t;

enum { FZ_CPU_ANY, FZ_CPU_SSE3, FZ_CPU_AVX, FZ_CPU_AVX512F, FZ_CPU_AVX512BW };

extern const fz_form_t fz_forms[];
extern const size_t fz_nforms;

/* Can this CPU run form f? */
bool fz_form_available(const fz_form_t *f);

#endif /* FUZZ_ACCESS_H */
