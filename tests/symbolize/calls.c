/*
 * calls.c — a report's frames through each form of call instruction, for
 * 26-symbolize's sym-call-address (frames show the call instruction's
 * address, as objdump prints it):
 *   main -> chain (e8, direct) -> via_rex (REX ff /2, r12)
 *   -> via_reg (ff /2, a register) -> via_base (ff /2, memory: a displacement from a register)
 *   -> via_rip (ff /2, memory: rip-relative) -> drop (e8 to free@plt)
 * "double" frees the block twice at the end of that chain (a report from
 * free: every frame a return address); "fault" reads a freed block at
 * the end of it (guard mode: frame #0 is the faulting load, as is).
 * Each call's line is marked CALL-name for the test.
 */
#include <stdlib.h>
#include <string.h>

typedef void (*step_fn)(void *);

struct ops {
    long pad;
    step_fn next;
};

static int fault_mode;
static volatile int sink;
step_fn rip_next;                       /* called through memory, rip-relative */
static struct ops base_ops;             /* called through memory, base + disp  */

__attribute__((noinline)) static void drop(void *p)
{
    if (fault_mode) {
        free(p);
        sink = *(volatile int *)p;      /* FAULT-load */
    } else {
        free(p);
        free(p);                        /* CALL-plt */
    }
    __asm__ volatile("" ::: "memory");  /* no tail calls: every frame stays */
}

__attribute__((noinline)) static void via_rip(void *p)
{
    rip_next(p);                        /* CALL-rip */
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void via_base(struct ops *o, void *p)
{
    o->next(p);                         /* CALL-base */
    __asm__ volatile("" ::: "memory");
}

static void base_step(void *p)
{
    via_base(&base_ops, p);             /* CALL-step */
}

__attribute__((noinline)) static void via_reg(step_fn *volatile fp, void *p)
{
    step_fn f = *fp;
    __asm__ volatile("" : "+r"(f));     /* in a register, not folded */
    f(p);                               /* CALL-reg */
    __asm__ volatile("" ::: "memory");
}

/* through r12: a REX prefix before ff /2 (41 ff d4) */
__attribute__((noinline)) static void via_rex(step_fn *volatile fp, void *p)
{
    register step_fn f __asm__("r12") = *fp;
    __asm__ volatile("" : "+r"(f));
    f(p);                               /* CALL-rex */
    __asm__ volatile("" ::: "memory");
}

static void reg_step(void *p)
{
    static step_fn next = base_step;
    via_reg(&next, p);                  /* CALL-step */
}

__attribute__((noinline)) static void chain(void *p)
{
    static step_fn first = reg_step;
    via_rex(&first, p);                 /* CALL-direct */
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    fault_mode = argc > 1 && strcmp(argv[1], "fault") == 0;
    rip_next = drop;
    base_ops.next = via_rip;
    void *p = malloc(64);
    chain(p);                           /* CALL-main */
    return 0;
}
