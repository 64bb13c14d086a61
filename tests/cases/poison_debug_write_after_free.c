/* expect: signal=SIGABRT token=heap-use-after-free check=none id=DEBUG_POISON addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: a byte of a freed block written while the block waits in
 * the quarantine (poisoned).  Nothing frees enough to push it out, so the
 * check at exit finds the poison changed and names the written byte.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(24);
    free(p);
    volatile char *q = p + 5;
    case_print_addr((const void *)q);
    *q = 'A';
    return 0;
}
