/* expect: signal=SIGABRT token=reentrant-call check=none id=REENTRANT options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a signal handler calls malloc() while its thread is inside
 * chunkguard (in malloc_stats, interrupted by SIGPIPE: case_inside).
 * Debug mode reports every such call; without halt_on_error=0 the report
 * ends the process.  (glibc may deadlock on its own arena lock here.)
 */
#include "case.h"

static void handler_mallocs(void)
{
    void *volatile p = malloc(32);
    (void)p;
}

int main(void)
{
    void *volatile p = malloc(32);
    free(p);
    case_inside(handler_mallocs);
    return 0;
}
