/*
 * nosym.c — double frees for 70-command.sh's dedup tests of frames with
 * no symbol (built stripped, or deleted while it runs).
 *
 *   one    frees a block twice in one function called from main
 *   two    frees a block twice through a helper, two calls deep
 *   unlink (before one or two) deletes its own executable first, so that
 *          /proc/self/maps shows it "(deleted)"
 * Run with mode=debug:halt_on_error=0.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void __attribute__((noinline)) free_twice(char *p)
{
    free(p);
    free(p);
}

static void __attribute__((noinline)) release(char *p)
{
    free(p);
}

static void __attribute__((noinline)) release_twice(char *p)
{
    release(p);
    release(p);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "unlink") == 0) {
            char self[4096];
            ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
            if (n <= 0)
                return 2;
            self[n] = 0;
            if (unlink(self) != 0)
                return 2;
        } else if (strcmp(argv[i], "one") == 0) {
            free_twice(malloc(16));
        } else if (strcmp(argv[i], "two") == 0) {
            release_twice(malloc(32));
        }
    }
    return 0;
}
