/*
 * replace.cc — a program that replaces only some of operator new and
 * delete, as [replacement.functions] allows; built by tests/suites/53-cxx.sh
 * with one of
 *   -DREPLACE_SCALAR   operator new(size_t) and operator delete(void*)
 *   -DREPLACE_DELETE   operator delete(void*) only
 *   -DREPLACE_ARRAY    operator new[](size_t) and operator delete[](void*)
 *   -DREPLACE_ALIGNED  operator new(size_t, align_val_t) and
 *                      operator delete(void*, align_val_t)
 *   -DREPLACE_ALL      every form: none of chunkguard's is reached
 * The forms it does not replace must behave as libstdc++'s defaults do:
 * the array forms call the scalar ones, nothrow the throwing ones, sized
 * the unsized ones, each aligned form its aligned counterpart — so each
 * use of a form below must reach the program's replacement exactly when
 * that chain leads to it (counted), and no report may follow from its
 * replacements handing blocks to malloc and free.  Prints each form's
 * count on a mismatch, "ok" at the end; status 1 on any mismatch.
 */
#include <stdio.h>
#include <stdlib.h>

#include <new>

static int news, deletes;
static int failed;

#ifdef REPLACE_SCALAR
void *operator new(size_t n)
{
    news++;
    void *p = malloc(n ? n : 1);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}
void operator delete(void *p) noexcept
{
    if (p != nullptr)
        deletes++;
    free(p);
}
#endif
#ifdef REPLACE_DELETE
void operator delete(void *p) noexcept
{
    if (p != nullptr)
        deletes++;
    free(p);
}
#endif
#ifdef REPLACE_ARRAY
void *operator new[](size_t n)
{
    news++;
    void *p = malloc(n ? n : 1);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}
void operator delete[](void *p) noexcept
{
    if (p != nullptr)
        deletes++;
    free(p);
}
#endif
#ifdef REPLACE_ALIGNED
void *operator new(size_t n, std::align_val_t al)
{
    news++;
    size_t a = static_cast<size_t>(al);
    void *p = aligned_alloc(a, (n + a - 1) / a * a);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}
void operator delete(void *p, std::align_val_t) noexcept
{
    if (p != nullptr)
        deletes++;
    free(p);
}
#endif

#ifdef REPLACE_ALL
/* each form counts once and takes its block from malloc (aligned_alloc) */
static void *take(size_t n, size_t a)
{
    news++;
    void *p = a ? aligned_alloc(a, (n + a - 1) / a * a) : malloc(n ? n : 1);
    if (p == nullptr)
        throw std::bad_alloc();
    return p;
}
static void drop(void *p)
{
    if (p != nullptr)
        deletes++;
    free(p);
}
#define AL(al) static_cast<size_t>(al)
void *operator new(size_t n) { return take(n, 0); }
void *operator new[](size_t n) { return take(n, 0); }
void *operator new(size_t n, const std::nothrow_t &) noexcept { return take(n, 0); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return take(n, 0); }
void *operator new(size_t n, std::align_val_t al) { return take(n, AL(al)); }
void *operator new[](size_t n, std::align_val_t al) { return take(n, AL(al)); }
void *operator new(size_t n, std::align_val_t al, const std::nothrow_t &) noexcept { return take(n, AL(al)); }
void *operator new[](size_t n, std::align_val_t al, const std::nothrow_t &) noexcept { return take(n, AL(al)); }
void operator delete(void *p) noexcept { drop(p); }
void operator delete[](void *p) noexcept { drop(p); }
void operator delete(void *p, size_t) noexcept { drop(p); }
void operator delete[](void *p, size_t) noexcept { drop(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { drop(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { drop(p); }
void operator delete(void *p, std::align_val_t) noexcept { drop(p); }
void operator delete[](void *p, std::align_val_t) noexcept { drop(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { drop(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { drop(p); }
void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { drop(p); }
void operator delete[](void *p, std::align_val_t, const std::nothrow_t &) noexcept { drop(p); }
#endif

/* Does the libstdc++ chain from a form lead to a replacement?  scalar:
 * a plain form; array: an array one; aligned: an aligned one. */
static bool reaches(bool array, bool aligned, bool is_new)
{
#if defined(REPLACE_SCALAR)
    (void)array;
    return !aligned;
#elif defined(REPLACE_DELETE)
    (void)array;
    return !aligned && !is_new;
#elif defined(REPLACE_ARRAY)
    (void)is_new;
    return array && !aligned;
#elif defined(REPLACE_ALIGNED)
    (void)array, (void)is_new;
    return aligned;
#else
    (void)array, (void)aligned, (void)is_new;
    return true;
#endif
}

static void expect(const char *form, int before, int after, bool counted)
{
    int want = before + (counted ? 1 : 0);
    if (after != want) {
        printf("%s: the replacement ran %d times, not %d\n", form, after - before, want - before);
        failed = 1;
    }
}

#define NEW(form, array, aligned, expr)                                 \
    ({ int b_ = news; auto p_ = (expr);                                  \
       expect(form, b_, news, reaches(array, aligned, true)); p_; })
#define DELETE(form, array, aligned, stmt)                              \
    do { int b_ = deletes; stmt;                                        \
         expect(form, b_, deletes, reaches(array, aligned, false)); } while (0)

int main()
{
    const std::align_val_t al = std::align_val_t(64);
    void *p;
    p = NEW("new", 0, 0, ::operator new(24));
    DELETE("delete", 0, 0, ::operator delete(p));
    p = NEW("new[]", 1, 0, ::operator new[](24));
    DELETE("delete[]", 1, 0, ::operator delete[](p));
    p = NEW("new nothrow", 0, 0, ::operator new(24, std::nothrow));
    DELETE("delete sized", 0, 0, ::operator delete(p, 24));
    p = NEW("new[] nothrow", 1, 0, ::operator new[](24, std::nothrow));
    DELETE("delete[] sized", 1, 0, ::operator delete[](p, 24));
    p = NEW("new", 0, 0, ::operator new(40));
    DELETE("delete nothrow", 0, 0, ::operator delete(p, std::nothrow));
    p = NEW("new[]", 1, 0, ::operator new[](40));
    DELETE("delete[] nothrow", 1, 0, ::operator delete[](p, std::nothrow));
    p = NEW("new aligned", 0, 1, ::operator new(100, al));
    DELETE("delete aligned", 0, 1, ::operator delete(p, al));
    p = NEW("new[] aligned", 1, 1, ::operator new[](100, al));
    DELETE("delete[] aligned", 1, 1, ::operator delete[](p, al));
    p = NEW("new aligned nothrow", 0, 1, ::operator new(100, al, std::nothrow));
    DELETE("delete sized aligned", 0, 1, ::operator delete(p, 100, al));
    p = NEW("new[] aligned nothrow", 1, 1, ::operator new[](100, al, std::nothrow));
    DELETE("delete[] sized aligned", 1, 1, ::operator delete[](p, 100, al));
    p = NEW("new aligned", 0, 1, ::operator new(100, al));
    DELETE("delete aligned nothrow", 0, 1, ::operator delete(p, al, std::nothrow));
    p = NEW("new[] aligned", 1, 1, ::operator new[](100, al));
    DELETE("delete[] aligned nothrow", 1, 1, ::operator delete[](p, al, std::nothrow));
    /* and the expressions, with a destructor (new[]'s cookie) */
    struct obj {
        long v = 1;
        ~obj() { v = 0; }
    };
    obj *o = NEW("new-expression", 0, 0, new obj);
    DELETE("delete-expression", 0, 0, delete o);
    o = NEW("new[]-expression", 1, 0, new obj[3]);
    DELETE("delete[]-expression", 1, 0, delete[] o);
    if (failed)
        return 1;
    puts("ok");
    return 0;
}
