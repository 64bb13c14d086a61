/*
 * preinit_env.c — the process's first allocation is made from a
 * .preinit_array function, which the dynamic loader runs before libc's own
 * initialisation has set `environ` (as clang's -fsanitize=fuzzer runtime
 * does, docs/fuzzing.md).  chunkguard starts right there and must still
 * read CHUNKGUARD_OPTIONS and glibc's settings.
 *
 * Prints "environ was NULL|set at the first malloc", then "ok".
 */
#include <stdio.h>
#include <stdlib.h>

extern char **environ;
static int environ_null;
static void *early;

static void first_malloc(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    environ_null = environ == NULL;
    early = malloc(40);
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit_hook)(int, char **, char **) = first_malloc;

int main(void)
{
    printf("environ was %s at the first malloc\n", environ_null ? "NULL" : "set");
    free(early);
    void *p = malloc(100);
    free(p);
    puts("ok");
    return 0;
}
