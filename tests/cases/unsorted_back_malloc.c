/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_BACK_MALLOC addr=printed */
/* glibc: malloc(): corrupted unsorted chunks 2 */
/*
 * malloc sorts at most 10000 chunks off the unsorted bin per call (as
 * glibc does), so a request can find the unsorted bin still holding
 * chunks when it puts a split's remainder there.  A 4016-byte chunk L is
 * sorted into its large bin; then 10001 free 144-byte chunks (their
 * tcache bin full, live guards between them) fill the unsorted bin, and
 * a use-after-free write points the newest one's bk, the first chunk's,
 * at the chunk of a live block.  malloc(2000) sorts the 10000 oldest into
 * a small bin, splits L and inserts the remainder in front of the first
 * chunk: that chunk must point back at the bin first.  (glibc makes the
 * same check on that path; its message there ends in "2".)
 */
#include "case.h"

#define N 10001

static char *x[N];

int main(void)
{
    char *l = malloc(4000);           /* chunk 4016 */
    char *gl = malloc(24);
    for (int i = 0; i < N; i++) {
        x[i] = malloc(136);           /* chunk 144 */
        (void)malloc(24);             /* a live guard */
    }
    case_fill_tcache(136);
    free(l);
    char *big = malloc(5000);         /* sorts L into its large bin */
    for (int i = 0; i < N; i++)
        free(x[i]);                   /* into the unsorted bin */
    ((char **)x[N - 1])[1] = gl - 16; /* the first chunk's bk */
    case_print_addr(x[N - 1]);
    char *p = malloc(2000);           /* splits L */
    (void)big;
    (void)p;
    return 0;
}
