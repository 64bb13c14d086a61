/* Regression test from the debug-mode break test of 2026-11-30 (docs: the issue 3 note). */
/* Double free of a big (mmap'd) block once it has left the quarantine. */
#include <stdlib.h>
int main(void) {
    char *p = malloc(200000);
    free(p);
    free(p);            /* bug: double free */
    return 0;
}
