/*
 * global.c — blocks reached from a global are still reachable, not leaked
 * (tests/suites/59-leaks.sh; mode=debug:detect_leaks=1).
 *
 *   global held   a global points at a 1000-byte block that points at a
 *                 2000-byte one; a third block (3000 bytes) is reached
 *                 from a global of a shared library's (libc's environ
 *                 array is replaced by a heap copy): no leak at all
 *   global mixed  the same, and a 50-byte block lost outright that points
 *                 to a 60-byte block
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

extern char **environ;
static void **volatile kept;

NOINLINE static void keep(void)
{
    kept = malloc(1000);
    memset(kept, 0, 1000);
    kept[0] = malloc(2000);
    /* a global of another module (libc's environ) */
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc(3000 > (n + 1) * sizeof *env ? 3000 : (n + 1) * sizeof *env);
    memcpy(env, environ, (n + 1) * sizeof *env);
    environ = env;
}

NOINLINE static void lose(void)
{
    void *volatile *volatile lost = malloc(50);   /* volatile slots: gcc drops a store into a block it sees lost */
    lost[0] = malloc(60);
    lost = NULL;
}

int main(int argc, char **argv)
{
    keep();
    if (argc > 1 && !strcmp(argv[1], "mixed"))
        lose();
    puts("ok");
    return 0;
}
