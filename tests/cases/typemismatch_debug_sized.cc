/* expect: signal=SIGABRT token=new-delete-type-mismatch check=CG_CHECK_SIZED_FREE id=DEBUG_NEW_DELETE_SIZE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: an object deleted through a pointer to its base class,
 * which has no virtual destructor: the sized delete the compiler calls
 * gets sizeof(base), 8, for a block of sizeof(derived), 48.  The shadow
 * record knows the size requested exactly.
 */
#include "case.h"

struct base {
    long id;
};
struct derived : base {
    char name[40];
};

int main()
{
    base *p = new derived;
    case_print_addr(p);
    delete p;
    return 0;
}
