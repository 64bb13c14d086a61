/* expect: signal=SIGABRT token=heap-buffer-overflow check=none id=GUARD_SLACK_AFTER addr=printed options=mode=guard */
/* glibc: none */
/*
 * Guard mode: a 41-byte block starts 16-byte aligned, so it ends 7 bytes
 * short of its guard page; a write one byte past it lands in that slack,
 * which free finds changed.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(41);
    case_print_addr(p + 41);
    p[41] = 1;
    free(p);
    return 0;
}
