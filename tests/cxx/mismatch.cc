/*
 * mismatch.cc — releases by the wrong family, each once: malloc/delete,
 * new/free, new[]/delete, new/delete[], aligned new/plain delete, and
 * realloc of a block from new.  Run by tests/suites/53-cxx.sh in debug
 * mode: with alloc_dealloc_mismatch=0 it must end with status 0 and no
 * report (glibc's own behaviour: code that relies on it keeps working);
 * by default the first release is reported.  Prints "ok" at the end.
 */
#include <stdio.h>
#include <stdlib.h>

#include <new>

struct alignas(64) line {
    char c[64];
};

int main()
{
    int *a = static_cast<int *>(malloc(sizeof(int)));
    delete a;
    int *b = new int(1);
    free(b);
    int *c = new int[8];
    delete c;
    int *d = new int(2);
    delete[] d;
    line *e = new line;
    ::operator delete(e);
    char *f = new char[100];
    f = static_cast<char *>(realloc(f, 200));
    free(f);
    puts("ok");
    return 0;
}
