/*
 * handler.cc — operator new's failure protocol under chunkguard
 * (entry/cxx.c), as libstdc++ defines it: run by tests/suites/53-cxx.sh.
 *
 * Usage: handler TEST, one of
 *   none       no new_handler: each throwing form throws std::bad_alloc,
 *              each nothrow form returns NULL; an alignment that is not a
 *              power of two fails the same way
 *   count      a handler that counts its calls and uninstalls itself at
 *              the third: the throwing forms call it three times, then
 *              throw; the nothrow forms too, then return NULL
 *   throws     a handler that throws std::bad_alloc itself: it comes out
 *              of the throwing forms, and the nothrow forms return NULL
 *   retry      (fast mode) the address space limit is lowered so a 256 MiB
 *              block cannot be mapped; the handler raises it again, and the
 *              retry succeeds after exactly one call
 * Prints "new_object=<path>" (serves.h), one line per form and "ok"; exit
 * status 1 on any difference.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <new>

#include "serves.h"

static volatile size_t huge = static_cast<size_t>(1) << 62;   /* no mapping can hold it */
static int calls, bad;
static void *volatile sink;

static void counting(void)
{
    if (++calls == 3)
        std::set_new_handler(nullptr);
}

static void throwing(void)
{
    calls++;
    throw std::bad_alloc();
}

static rlimit saved;
static void raise_limit(void)
{
    calls++;
    setrlimit(RLIMIT_AS, &saved);
}

/* form(n, align): one allocation; the throwing ones return "threw" by
 * flag.  want_calls: the handler calls each form must make. */
static void expect_throw(const char *name, void *(*form)(size_t, size_t), size_t al,
                         int want_calls, void (*handler)(void))
{
    calls = 0;
    std::set_new_handler(handler);
    bool threw = false;
    try {
        sink = form(huge, al);
    } catch (const std::bad_alloc &) {
        threw = true;
    }
    printf("%s: %s after %d handler calls\n", name, threw ? "threw" : "returned", calls);
    if (!threw || calls != want_calls)
        bad = 1;
}

static void expect_null(const char *name, void *(*form)(size_t, size_t), size_t al,
                        int want_calls, void (*handler)(void))
{
    calls = 0;
    std::set_new_handler(handler);
    void *p = reinterpret_cast<void *>(1);
    try {
        p = form(huge, al);
    } catch (...) {
        printf("%s: threw (a nothrow form)\n", name);
        bad = 1;
        return;
    }
    printf("%s: %s after %d handler calls\n", name, p ? "a block" : "NULL", calls);
    if (p != nullptr || calls != want_calls)
        bad = 1;
}

static void *f_new(size_t n, size_t) { return ::operator new(n); }
static void *f_new_a(size_t n, size_t) { return ::operator new[](n); }
static void *f_new_al(size_t n, size_t al) { return ::operator new(n, std::align_val_t(al)); }
static void *f_new_a_al(size_t n, size_t al) { return ::operator new[](n, std::align_val_t(al)); }
static void *f_nt(size_t n, size_t) { return ::operator new(n, std::nothrow); }
static void *f_nt_a(size_t n, size_t) { return ::operator new[](n, std::nothrow); }
static void *f_nt_al(size_t n, size_t al)
{
    return ::operator new(n, std::align_val_t(al), std::nothrow);
}
static void *f_nt_a_al(size_t n, size_t al)
{
    return ::operator new[](n, std::align_val_t(al), std::nothrow);
}

static void all_forms(int want, void (*handler)(void))
{
    expect_throw("new", f_new, 0, want, handler);
    expect_throw("new[]", f_new_a, 0, want, handler);
    expect_throw("new(align)", f_new_al, 64, want, handler);
    expect_throw("new[](align)", f_new_a_al, 64, want, handler);
    expect_null("new(nothrow)", f_nt, 0, want, handler);
    expect_null("new[](nothrow)", f_nt_a, 0, want, handler);
    expect_null("new(align, nothrow)", f_nt_al, 64, want, handler);
    expect_null("new[](align, nothrow)", f_nt_a_al, 64, want, handler);
}

int main(int argc, char **argv)
{
    const char *test = argc > 1 ? argv[1] : "none";
    print_new_object();
    if (strcmp(test, "none") == 0) {
        all_forms(0, nullptr);
        /* a bad alignment fails at once, even with a handler installed */
        calls = 0;
        std::set_new_handler(counting);
        bool threw = false;
        try {
            sink = ::operator new(16, std::align_val_t(48));
        } catch (const std::bad_alloc &) {
            threw = true;
        }
        void *p = ::operator new(16, std::align_val_t(48), std::nothrow);
        printf("align 48: %s, nothrow %s, %d handler calls\n", threw ? "threw" : "returned",
               p ? "a block" : "NULL", calls);
        if (!threw || p != nullptr || calls != 0)
            bad = 1;
    } else if (strcmp(test, "count") == 0) {
        all_forms(3, counting);
    } else if (strcmp(test, "throws") == 0) {
        all_forms(1, throwing);
    } else if (strcmp(test, "retry") == 0) {
        getrlimit(RLIMIT_AS, &saved);
        unsigned long vm_kb = 0;
        if (FILE *f = fopen("/proc/self/status", "r")) {
            char line[256];
            while (fgets(line, sizeof line, f))
                sscanf(line, "VmSize: %lu kB", &vm_kb);
            fclose(f);
        }
        rlimit low = saved;
        low.rlim_cur = (vm_kb << 10) + (16ul << 20);
        calls = 0;
        std::set_new_handler(raise_limit);
        setrlimit(RLIMIT_AS, &low);
        void *p = ::operator new(256ul << 20);
        setrlimit(RLIMIT_AS, &saved);
        memset(p, 1, 256ul << 20);
        printf("retry: a block after %d handler calls\n", calls);
        if (calls != 1)
            bad = 1;
        ::operator delete(p);
    } else {
        fprintf(stderr, "handler: unknown test %s\n", test);
        return 2;
    }
    puts(bad ? "BROKEN" : "ok");
    return bad;
}
