/*
 * ownnew.cc — a program with its own operator new and delete (on malloc
 * and free) that deletes one object twice.  Its operators are the frames
 * next to chunkguard's in the report's stacks, which must name them
 * demangled: "operator new(unsigned long)", "operator delete(void*)".
 * Run by tests/suites/53-cxx.sh in debug mode.
 */
#include <stdlib.h>

#include <new>

__attribute__((noinline)) void *operator new(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}

__attribute__((noinline)) void operator delete(void *p) noexcept
{
    free(p);
}

__attribute__((noinline)) void operator delete(void *p, size_t) noexcept
{
    free(p);
}

struct node {
    long key;
    node *next;
};

/* Out of line, so the compiler can neither drop the allocation nor the
 * frees (new and delete pairs may be elided). */
__attribute__((noinline)) static node *make(void)
{
    return new node{ 1, nullptr };
}

__attribute__((noinline)) static void drop(node *n)
{
    delete n;
}

node *volatile keep;

int main()
{
    keep = make();
    drop(keep);
    drop(keep);
    return 0;
}
