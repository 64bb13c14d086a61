/*
 * dead.c — a block whose only copies are in dead stack memory: frames
 * that have returned (tests/suites/59-leaks.sh; mode=debug:detect_leaks=1).
 *
 * lose() mallocs a block and sprays its address over a large local array,
 * calls something so that the frame is real, and returns without freeing.
 * main then checks, with the address XOR-ed so that it keeps no copy of it,
 * that copies still survive below its stack pointer (in dead memory), and
 * exits: "dead 0" with exit(), "dead 1" by returning from main; "dead 2"
 * loses it in an atexit handler instead, in the part of the stack the
 * exit-time check's own frames reuse.  The block
 * must be reported: a word below the live stack pointer is not a root.
 * Prints "stale copies: N" (N > 0 makes the test meaningful).  Before
 * the fix the exit path's own frames left some copies in place above the
 * check's frame, which scanned them as live: the leak went unreported.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define KEY ((uintptr_t)0x5a5a5a5a5a5a5a5aull)
#define WORDS 8192                 /* 64 KiB of the dead stack */

static volatile uintptr_t hidden;  /* the block's address ^ KEY */
static volatile uintptr_t lo_seen, hi_seen;

NOINLINE static void use(volatile uintptr_t *w) { (void)w; }

NOINLINE static void lose(void)
{
    volatile uintptr_t spray[WORDS];
    char *p = malloc(4321);
    p[0] = 1;
    hidden = (uintptr_t)p ^ KEY;
    for (int i = 0; i < WORDS; i++)
        spray[i] = (uintptr_t)p;
    lo_seen = (uintptr_t)&spray[0];
    hi_seen = (uintptr_t)&spray[WORDS];
    p = NULL;
    use(spray);
}

/* How many words of the dead frame still hold the address (compared
 * XOR-ed, so no register gets the address itself). */
NOINLINE static int count_stale(void)
{
    int n = 0;
    for (uintptr_t a = lo_seen; a < hi_seen; a += sizeof(uintptr_t))
        if ((*(volatile uintptr_t *)a ^ KEY) == hidden)
            n++;
    return n;
}

/* Count the stale copies and say how many, with write(): printf's deep
 * frames would overwrite the dead frame before exit's own do. */
NOINLINE static int say_stale(void)
{
    int n = count_stale(), r = n;
    /* write(), not printf: stdio's deep frames would overwrite the dead
     * frame before exit's own do */
    char line[32] = "stale copies: ", *e = line + 14, d[12];
    int k = 0;
    do d[k++] = (char)('0' + n % 10); while ((n /= 10) > 0);
    while (k > 0) *e++ = d[--k];
    *e++ = '\n';
    if (write(1, line, (size_t)(e - line)) < 0)
        return -1;
    return r;
}

/* "dead 2": the block is lost by an atexit handler, whose frame the
 * exit-time check's own frames then reuse. */
static void at_exit_loses(void)
{
    lose();
    say_stale();
}

int main(int argc, char **argv)
{
    int how = argc > 1 ? argv[1][0] - '0' : 0;
    if (how == 2) {
        atexit(at_exit_loses);
        exit(0);
    }
    lose();
    say_stale();
    if (how == 1)
        return 0;
    exit(0);
}
