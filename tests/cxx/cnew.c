/*
 * cnew.c — a C program that calls operator new by its mangled name with
 * a size no mapping can hold: with no C++ runtime loaded there is no
 * std::bad_alloc to throw, so chunkguard says so and aborts (as libstdc++
 * built without exceptions does).  The name is weak: without chunkguard
 * it is not there, and the program exits with status 2.  Run by
 * tests/suites/53-cxx.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern void *_Znwm(size_t n) __attribute__((weak));

int main(void)
{
    if (!_Znwm)
        return 2;
    void *volatile p = _Znwm((size_t)1 << 62);
    printf("returned %p\n", p);
    return 0;
}
