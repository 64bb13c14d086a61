/*
 * hc_interval.c — verify_interval finds a corruption no operation touches.
 *
 * A freed 2000-byte block (it goes to the unsorted bin) gets a bad back
 * link, as a write after free would leave it; then the program only
 * frees and reallocates one 24-byte block (tcache traffic that never looks
 * at the bins).  Under CHUNKGUARD_OPTIONS=verify_interval=N the verifier
 * runs during that loop and reports "heap check: bk does not point back"
 * (the process aborts); without the option the program ends normally,
 * exit 0, with no report.  tests/suites/57-heapcheck.sh checks both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int loops = argc > 1 ? atoi(argv[1]) : 1000;
    void *x = malloc(24);
    void *p = malloc(2000);
    void *guard = malloc(100);
    free(p);
    ((uintptr_t *)p)[1] = (uintptr_t)guard;     /* bk: write after free */
    for (int i = 0; i < loops; i++) {
        free(x);
        x = malloc(24);
    }
    /* write(2), not stdio: its buffer would come from the unsorted bin */
    static const char done[] = "hc_interval: loops done\n";
    return write(1, done, sizeof done - 1) < 0;
}
