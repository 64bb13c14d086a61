/* Regression test from the debug-mode break test of 2026-11-30 (docs: the issue 3 note). */
/* Debug mode, default options.  A 26-byte overflow of a 35-byte block
 * rewrites the size of the free chunk after it (21 bytes of redzone, then
 * 5 bytes of the size word); the next malloc of that size: SIGSEGV in
 * memset called by chunkguard, no report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    char *a = malloc(35);
    char *b = malloc(35);
    char *c = malloc(35);               /* keeps b away from the top chunk */
    free(b);
    for (int i = 0; i < 100; i++)       /* 100 MiB of frees: b leaves the quarantine */
        free(malloc(1 << 20));
    char *keep[8];
    for (int i = 0; i < 8; i++) keep[i] = malloc(2000);   /* b's chunk goes to its small bin */
    memset(a + 35, 0xff, 26);           /* bug: overflow a by 26 bytes */
    char *d = malloc(35);               /* served from b's chunk */
    printf("not reached %p %p %p\n", (void *)c, (void *)d, (void *)keep[0]);
    return 0;
}
