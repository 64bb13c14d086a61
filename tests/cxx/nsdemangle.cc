/*
 * nsdemangle.cc — a double free in a member function of a class template
 * in a namespace, of a buffer a function template allocated: the frames
 * chunkguard names from the symbol table are C++ manglings
 * (_ZN3app3boxIiE4dropEPi, _ZN3app4makeIiEEPT_m), which every output must
 * show demangled ("app::box<int>::drop(int*)") while the dedup hash
 * reads the mangled name.  Run by tests/suites/53-cxx.sh in debug mode.
 */
#include <stdlib.h>

namespace app {

template <class T> __attribute__((noinline)) T *make(size_t n)
{
    return static_cast<T *>(malloc(n * sizeof(T)));
}

template <class T> struct box {
    T *p;
    __attribute__((noinline)) void drop(T *q)
    {
        free(q);
        asm volatile("" ::: "memory");
    }
};

template struct box<int>;

}  // namespace app

int main()
{
    app::box<int> b{ app::make<int>(4) };
    b.drop(b.p);
    b.drop(b.p);
    return 0;
}
