#!/usr/bin/env python3
# longname.py DEPTH — writes to stdout a C++ program whose frames have
# names of about 1550 bytes mangled and demangled (a template function of
# four 300-byte type names, as deep C++ templates give), DEPTH of them
# inlined into one frame: an overflow found at free, whose report's two
# stacks are each DEPTH such lines long; run with an argument, the block
# leaks instead (26-symbolize sym-long-names-*).
import sys

depth = int(sys.argv[1])
L = "x" * 290
ids = ["long_type_%s_%s" % (c, L) for c in "abcd"]
fn = "very_long_function_name_" + L
types = "".join("struct %s {};\n" % i for i in ids)
args = ", ".join(ids)
src = r'''#include <stdlib.h>
TYPES
volatile int sink;
template <int N, class A, class B, class C, class D>
__attribute__((always_inline)) inline char *FN(char *p)
{
    char *r = FN<N - 1, A, B, C, D>(p);
    sink++;
    return r;
}
template <> __attribute__((noinline)) char *FN<0, ARGS>(char *p)
{
    if (p == 0)
        return (char *)malloc(24);
    ((volatile char *)p)[24] = 1;    /* one byte past: found at free */
    free(p);
    return 0;
}
__attribute__((noinline)) char *outer(char *p) { char *r = FN<DEPTH, ARGS>(p); sink++; return r; }
int main(int argc, char **argv)
{
    char *p = outer(0);
    (void)argv;
    if (argc > 1)
        return 0;                    /* "leak": p leaks */
    outer(p);
    return 0;
}
'''.replace("TYPES", types).replace("FN", fn).replace("ARGS", args).replace("DEPTH", str(depth))
sys.stdout.write(src)
