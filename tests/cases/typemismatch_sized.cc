/* expect: signal=SIGABRT token=new-delete-type-mismatch check=CG_CHECK_SIZED_FREE id=NEW_DELETE_SIZE addr=printed */
/* glibc: none */
/*
 * Fast mode: an object deleted through a pointer to its base class
 * without a virtual destructor, sizeof(base) 8 for a block of
 * sizeof(derived) 400.  Fast mode knows only the chunk: a 416-byte chunk
 * was never handed out for an 8-byte request (its chunk is 32 bytes).
 */
#include "case.h"

struct base {
    long id;
};
struct derived : base {
    char payload[392];
};

int main()
{
    base *p = new derived;
    case_print_addr(p);
    delete p;
    return 0;
}
