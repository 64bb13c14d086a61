/*
 * guard_big.c — which freed blocks debug mode page-protects (guard_big):
 * allocates a block of SIZE bytes, frees it, and prints whether the page
 * it started on is now inaccessible ("sealed": a guarded block's range)
 * or still readable ("open": a heap block, poisoned in the quarantine),
 * from /proc/self/maps, so nothing here touches the freed memory.
 *
 * usage: guard_big SIZE      exit 0 after the line, 2 on bad usage or no
 *                            mapping found
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    size_t n = strtoul(argv[1], NULL, 10);
    char *p = malloc(n);
    if (p == NULL)
        return 2;
    p[0] = 1;
    p[n - 1] = 2;
    uintptr_t a = (uintptr_t)p;
    free(p);
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        char prot[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, prot) == 3 && a >= lo && a < hi) {
            printf("%s\n", prot[0] == 'r' ? "open" : "sealed");
            return 0;
        }
    }
    return 2;
}
