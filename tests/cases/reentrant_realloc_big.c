/* expect: signal=SIGABRT token=reentrant-call check=none id=REENTRANT_REALLOC_UNSIZED */
/* glibc: none */
/*
 * A signal handler that interrupts chunkguard (case_inside) reallocs a
 * big (mmap'd) block the program allocated before.  Its size is in the
 * big-block registry, whose lock the interrupted call may hold, so the
 * call cannot be served and is reported.
 */
#include "case.h"

static void *volatile big;

static void handler_reallocs(void)
{
    big = realloc(big, 100);
}

int main(void)
{
    big = malloc(1 << 20);
    case_inside(handler_reallocs);
    return 0;
}
