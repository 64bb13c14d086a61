/*
 * cookie.cc — delete[] of one object with a non-trivial destructor that
 * plain new made.  The compiler's delete[] reads the array cookie (the
 * size_t just before the pointer) for the count of destructors to run,
 * then calls operator delete[](p - 8).  Run by tests/suites/53-cxx.sh,
 * built at -O0 and -O2, in debug and guard mode (under a timeout): the
 * word there must read 0 (no destructor runs: a redzone fill read as a
 * count ran ~0xfafa... of them, for ever), and the release is reported as
 * alloc-dealloc-mismatch naming the block.  With halt_on_error=0 it
 * goes on, prints "destructors=0" and "ok" and ends with status 0.
 */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Warray-bounds"   /* the bug is the point */

static volatile long ran;

struct obj {
    long v;
    obj() : v(7) {}
    ~obj() { ran = ran + 1; }
};

int main()
{
    obj *o = new obj;
    delete[] o;
    printf("destructors=%ld\n", (long)ran);
    puts("ok");
    return 0;
}
