/*
 * forms.cc — every form of operator new and delete, used as a correct
 * program uses them, with the blocks checked; run by tests/suites/53-cxx.sh
 * under chunkguard (preloaded, and linked from libchunkguard.a) in each
 * mode, where it must end with status 0 and no report.
 *
 * Prints "new_object=<path>" — the object whose operator new(unsigned
 * long) the program calls (dladdr), so the suite can tell that chunkguard
 * serves it and not libstdc++ — then "ok"; exit status 1 when a block's
 * contents or alignment are wrong.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "serves.h"

static int bad;

static void fill_check(void *p, size_t n, size_t align, const char *what)
{
    if (align && (reinterpret_cast<uintptr_t>(p) & (align - 1)) != 0) {
        printf("misaligned %s: %p for %zu\n", what, p, align);
        bad = 1;
    }
    memset(p, 0x5a, n);
    for (size_t i = 0; i < n; i += 97)
        if (static_cast<unsigned char *>(p)[i] != 0x5a)
            bad = 1;
}

struct counted {
    static int live;
    long v[3];
    counted() { live++; }
    ~counted() { live--; }
};
int counted::live;

struct alignas(64) line {
    char c[64];
    ~line() { c[0] = 0; }
};

struct base {
    virtual ~base() {}
    long a;
};
struct derived : base {
    char more[200];
};

int main()
{
    print_new_object();

    static const size_t sizes[] = { 0, 1, 8, 24, 100, 1000, 5000, 70000, 300000 };
    static const size_t aligns[] = { 1, 8, 16, 32, 64, 4096, 1 << 16 };
    for (size_t n : sizes) {
        void *p = ::operator new(n);
        fill_check(p, n, 16, "new");
        ::operator delete(p);
        p = ::operator new(n);
        fill_check(p, n, 16, "new");
        ::operator delete(p, n);
        p = ::operator new[](n);
        fill_check(p, n, 16, "new[]");
        ::operator delete[](p);
        p = ::operator new[](n);
        ::operator delete[](p, n);
        p = ::operator new(n, std::nothrow);
        fill_check(p, n, 16, "new nothrow");
        ::operator delete(p, std::nothrow);
        p = ::operator new[](n, std::nothrow);
        ::operator delete[](p, std::nothrow);
        for (size_t a : aligns) {
            std::align_val_t al = static_cast<std::align_val_t>(a);
            p = ::operator new(n, al);
            fill_check(p, n, a, "aligned new");
            ::operator delete(p, al);
            p = ::operator new(n, al);
            ::operator delete(p, n, al);
            p = ::operator new[](n, al);
            fill_check(p, n, a, "aligned new[]");
            ::operator delete[](p, al);
            p = ::operator new[](n, al);
            ::operator delete[](p, n, al);
            p = ::operator new(n, al, std::nothrow);
            fill_check(p, n, a, "aligned new nothrow");
            ::operator delete(p, al, std::nothrow);
            p = ::operator new[](n, al, std::nothrow);
            ::operator delete[](p, al, std::nothrow);
        }
    }
    ::operator delete(nullptr);
    ::operator delete[](nullptr);
    ::operator delete(nullptr, std::align_val_t(64));

    /* What the compiler calls: arrays with cookies, over-aligned types,
     * deletion through a base with a virtual destructor (sized with the
     * derived size), the containers' allocators (sized deletes). */
    for (int round = 0; round < 100; round++) {
        counted *one = new counted;
        counted *arr = new counted[round + 1];
        line *l = new line;
        line *ls = new line[3];
        fill_check(l, sizeof *l, 64, "alignas(64) new");
        fill_check(ls, 3 * sizeof *ls, 64, "alignas(64) new[]");
        base *b = new derived;
        delete b;
        delete l;
        delete[] ls;
        delete one;
        delete[] arr;
        std::vector<std::string> v;
        for (int i = 0; i < 50; i++)
            v.push_back(std::string(static_cast<size_t>(i * 7 + round), 'x'));
        std::map<int, std::vector<int>> m;
        for (int i = 0; i < 40; i++)
            m[i].resize(static_cast<size_t>(i * round % 300));
        auto sp = std::make_shared<derived>();
        std::unique_ptr<int[]> up(new int[round + 3]);
    }
    if (counted::live != 0)
        bad = 1;
    puts(bad ? "BROKEN" : "ok");
    return bad;
}
