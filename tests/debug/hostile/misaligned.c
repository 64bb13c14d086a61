/* Issue 13, point 13: a report made while the stack pointer is misaligned.
 * The program overwrites its own return address with the address of a
 * function that calls exit (as an exploit's hijacked return does), so
 * that function runs with %rsp 8 bytes off the 16-byte alignment the ABI
 * promises at a call; every report chunkguard makes from there on (the
 * checks at exit, a bad free) must still be written whole.
 *   misaligned exit-overflow   a live block overflowed, found at exit
 *   misaligned exit-leak       a leak, reported at exit (detect_leaks=1)
 *   misaligned free            a double free made from the hijacked frame
 * Build with -O1 -fno-omit-frame-pointer (the return address is found
 * through the frame pointer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *what;
static char *volatile keep;

static void landed(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    /* at a function's first instruction %rsp % 16 == 8; after the
     * hijacked return it is 0, so here (past the prologue) it is off by
     * 8.  No stdio from here on: glibc's own printf faults on such a
     * stack (movaps), before chunkguard is ever called. */
    char line[] = "landed: rsp % 16 = ?\n";
    line[sizeof line - 3] = (char)('0' + sp % 16 % 10);
    write(2, line, sizeof line - 1);
    if (strcmp(what, "free") == 0) {
        char *p = malloc(24);
        free(p);
        free(p);                       /* the double free */
    }
    exit(0);
}

__attribute__((noinline)) static void hijacked(void)
{
    /* the saved return address, just above the saved frame pointer */
    void **ra = (void **)__builtin_frame_address(0) + 1;
    *ra = (void *)landed;
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    what = argc > 1 ? argv[1] : "exit-overflow";
    if (strcmp(what, "exit-overflow") == 0) {
        keep = malloc(40);
        keep[40] = 'x';                /* one byte past a live block */
    } else if (strcmp(what, "exit-leak") == 0) {
        char *p = malloc(40);
        memset(p, 1, 40);
        p = NULL;                      /* leaked */
    }
    hijacked();
    return 0;
}
