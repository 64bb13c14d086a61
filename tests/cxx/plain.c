/*
 * plain.c — a C program under chunkguard: it must not get the C++ runtime
 * (libstdc++, libgcc_s's unwinder) loaded into it by chunkguard's C++
 * support.  Reads /proc/self/maps after some allocations; prints
 * "cxx-runtime-loaded <line>" and exits 1 if any mapping is libstdc++ or
 * libgcc_s, else prints "ok".  Run by tests/suites/53-cxx.sh preloaded
 * and linked with libchunkguard.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    void *keep[64];
    for (int i = 0; i < 64; i++)
        keep[i] = malloc((size_t)i * 97 + 1);
    for (int i = 0; i < 64; i++)
        free(keep[i]);
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return 2;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "libstdc++") || strstr(line, "libgcc_s")) {
            printf("cxx-runtime-loaded %s", line);
            found = 1;
        }
    fclose(f);
    if (!found)
        puts("ok");
    return found;
}
