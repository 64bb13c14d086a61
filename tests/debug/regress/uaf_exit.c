/* Regression test from the debug-mode break test of 2026-11-30 (docs: the issue 3 note). */
/* A write after free, then the program ends normally. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    char *p = malloc(40);
    free(p);
    strcpy(p, "oops");            /* bug: write after free */
    puts("done");
    return 0;
}
