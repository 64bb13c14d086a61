/*
 * app.c — a program built against an installed chunkguard (72-install).
 *   app            malloc/free through chunkguard, then its counters:
 *                  prints "chunkguard mallocs=N frees=N verify=0"
 *   app double     a double free: chunkguard must report it and abort
 * Uses chunkguard.h's API, so it links only where chunkguard is linked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chunkguard.h>

int main(int argc, char **argv)
{
    char *volatile p = malloc(40);
    if (p == NULL)
        return 2;
    strcpy(p, "block");
    if (argc > 1 && strcmp(argv[1], "double") == 0) {
        free(p);
        free(p);
        return 0;
    }
    free(p);
    cg_stats_t st;
    cg_get_stats(&st);
    printf("chunkguard mallocs=%llu frees=%llu verify=%zu\n", st.mallocs, st.frees, cg_verify_heap());
    return 0;
}
