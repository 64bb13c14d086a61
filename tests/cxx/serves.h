/*
 * serves.h — for the C++ test programs of tests/suites/53-cxx.sh: print
 * "new_object=<path>", the object whose operator new(unsigned long) the
 * program calls (dladdr), so the suite can tell that chunkguard serves it
 * and not libstdc++.
 */
#ifndef CG_TESTS_CXX_SERVES_H
#define CG_TESTS_CXX_SERVES_H

#include <dlfcn.h>
#include <stdio.h>

#include <new>

static inline void print_new_object(void)
{
    Dl_info info;
    void *(*plain)(size_t) = &::operator new;
    if (dladdr(reinterpret_cast<void *>(plain), &info) && info.dli_fname)
        printf("new_object=%s\n", info.dli_fname);
}

#endif
