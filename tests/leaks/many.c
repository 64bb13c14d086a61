/* many.c — leaks N blocks (argv[1], default 5000), each from a call stack
 * of its own: a chain of 13 calls through a() or b(), chosen by the bits
 * of the block's number, so up to 8192 distinct allocation stacks.  The
 * leak report keeps at most 4096 groups; the rest must be counted. */
#include <stdlib.h>

static void *sink;   /* written and cleared: the last block is not reachable */

static void leaf(unsigned i)
{
    sink = malloc(16 + (i % 64) * 16);
    sink = NULL;
}

static void a(unsigned i, int level);
static void b(unsigned i, int level);

static void step(unsigned i, int level)
{
    if (level == 13)
        leaf(i);
    else if ((i >> level) & 1)
        b(i, level + 1);
    else
        a(i, level + 1);
}

__attribute__((noinline)) static void a(unsigned i, int level) { step(i, level); __asm__ volatile(""); }
__attribute__((noinline)) static void b(unsigned i, int level) { step(i, level); __asm__ volatile(""); }

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 5000;
    for (unsigned i = 0; i < n; i++)
        step(i, 0);
    return 0;
}
