/*
 * typemismatch.cc — sized and aligned deletes whose size or alignment is
 * not the block's, each once: an object deleted through a base class
 * without a virtual destructor (sized delete of 8 bytes for a 400-byte
 * block, also one from the tcache's range and one mmap'd), and an aligned
 * delete with the wrong alignment.  Run by tests/suites/53-cxx.sh with
 * new_delete_type_mismatch=0 in each mode: it must end with status 0 and
 * no report (glibc's behaviour); by default the first delete is reported
 * (tests/cases/typemismatch_*.cc).  Prints "ok" at the end.
 */
#include <stdio.h>

#include <new>

struct base {
    long id;
};
struct derived : base {
    char payload[392];
};
struct huge : base {
    char payload[1 << 20];
};

int main()
{
    base *p = new derived;
    delete p;                       /* sized delete: 8 for a 400-byte block */
    base *q = new huge;
    delete q;                       /* a mapping of its own */
    void *r = ::operator new(100, std::align_val_t(64));
    ::operator delete(r, 100, std::align_val_t(4096));
    puts("ok");
    return 0;
}
