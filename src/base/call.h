/*
 * call.h — the call being served: what a report or a lock report names,
 * carried as one small value instead of thread-local side fields
 * (docs/design.md, "The call").
 *
 * An API entry (entry/api.c, entry/interpose.c) fills one cg_call_t on its
 * stack, once, and hands its address down: the mode's table gets it, and
 * so does every function below that can report (the reporters of
 * report/checks.h, debug mode's) or take a lock on the call's behalf (a
 * report about the lock then names the call).  A path that serves no
 * program call — the fault handler, the checks at exit, a thread's exit,
 * initialisation — fills its own (cg_call_internal).  The object is made
 * const where it is filled, so the compiler keeps its fields in registers
 * across the calls it is passed to.
 */
#ifndef CG_CALL_H
#define CG_CALL_H

#include "platform.h"

struct cg_tcache;

/*
 * The family of an allocation call: C's malloc family, or one of C++'s
 * operator new forms.  What one family allocates only the same family
 * releases — free and realloc take malloc's blocks (malloc, calloc,
 * realloc, the memalign family), operator delete takes operator new's,
 * delete[] new[]'s, and the std::align_val_t forms each other's (C++17
 * [new.delete]; glibc does not care, debug mode checks it:
 * alloc-dealloc-mismatch).  0 is C's, so a call filled without a family
 * is C's.  The nothrow forms are their throwing forms' family.
 */
enum {
    CG_FAMILY_MALLOC = 0,          /* malloc ... / free, realloc, free_sized       */
    CG_FAMILY_NEW,                 /* operator new / operator delete             */
    CG_FAMILY_NEW_ARRAY,           /* operator new[] / operator delete[]         */
    CG_FAMILY_NEW_ALIGNED,         /* operator new(size, align_val_t) / delete   */
    CG_FAMILY_NEW_ARRAY_ALIGNED,   /* operator new[](size, align_val_t) / delete[] */
    CG_FAMILY_COUNT,
    /* a release whose family is not known (a free deferred from a signal
     * handler, whose table keeps only the pointer): not checked */
    CG_FAMILY_UNKNOWN = 0xff
};

CG_INLINE bool cg_family_array(int f)
{
    return f == CG_FAMILY_NEW_ARRAY || f == CG_FAMILY_NEW_ARRAY_ALIGNED;
}

/* The C functions of the catalogue (calls.def): CG_OP(name) is the
 * string a call site passes as its call's op, "name", and compiles only
 * for a name the catalogue lists, so what a report can name is listed
 * there. */
enum {
#define CG_CALL(name) CG_CALL_ID_##name,
#define CG_CALL_FAMILY(family, new_name, delete_name)
#include "calls.def"
#undef CG_CALL
#undef CG_CALL_FAMILY
    CG_CALL_COUNT
};
#define CG_OP(name) ((void)CG_CALL_ID_##name, #name)

/* What a family's allocating and releasing functions are called in
 * reports (calls.def): "malloc" and "free" for C's (whose other calls
 * name themselves), "operator new[]" and "operator delete[]" ... for
 * C++'s.  release: the releasing function's name.  Indexed by f & 15, so
 * any family value reads the table (one without a name, CG_FAMILY_UNKNOWN
 * among them: NULL), and a constant f folds to its string. */
#define CG_FAMILY_NAMES 16
CG_INLINE const char *cg_family_name(int f, bool release)
{
    static const char *const names[CG_FAMILY_NAMES][2] = {
#define CG_CALL(name)
#define CG_CALL_FAMILY(family, new_name, delete_name) [family] = { new_name, delete_name },
#include "calls.def"
#undef CG_CALL
#undef CG_CALL_FAMILY
    };
    return names[f & (CG_FAMILY_NAMES - 1)][release];
}
CG_INLINE const char *cg_family_new_name(int f) { return cg_family_name(f, false); }
CG_INLINE const char *cg_family_delete_name(int f) { return cg_family_name(f, true); }
_Static_assert(CG_FAMILY_COUNT <= CG_FAMILY_NAMES, "a family without a name");

typedef struct cg_call {
    uintptr_t caller;           /* the program's call site (0: none)        */
    const char *op;             /* the API function served ("malloc", ...)  */
    struct cg_tcache *tc;       /* this thread's tcache, or NULL (none yet,
                                 * gone at thread exit, or a mode without)  */
    bool mt;                    /* other threads may run: decided once, at
                                 * the top of the operation (locks are taken,
                                 * atomics used)                            */
    uint8_t family;             /* CG_FAMILY_*: the API's family (a block
                                 * allocated records it; a release of a
                                 * block is checked against it)             */
} cg_call_t;

/* The context of work chunkguard does on no program call's behalf: op
 * names it in reports ("exit", "a memory access"); no call site, no
 * tcache. */
CG_INLINE cg_call_t cg_call_internal(const char *op)
{
    return (cg_call_t){ .caller = 0, .op = op, .tc = NULL, .mt = !CG_SINGLE_THREAD_P };
}

/* An API call that needs no tcache (the introspection calls, mallopt):
 * made from caller. */
CG_INLINE cg_call_t cg_call_at(uintptr_t caller, const char *op)
{
    return (cg_call_t){ .caller = caller, .op = op, .tc = NULL, .mt = !CG_SINGLE_THREAD_P };
}

#endif /* CG_CALL_H */
