/*
 * plain.c — a program that knows nothing of chunkguard (72-install
 * preloads the installed libchunkguard.so into it): a double free when
 * asked, else a clean run that prints "ok".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    char *volatile p = malloc(24);
    if (argc > 1 && strcmp(argv[1], "double") == 0)
        free(p);
    free(p);
    puts("ok");
    return 0;
}
