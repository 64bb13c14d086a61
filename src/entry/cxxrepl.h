/*
 * cxxrepl.h — a program's own replacements of operator new and delete
 * ([replacement.functions]; implemented in cxxrepl.c).
 *
 * A program may replace any of the forms chunkguard exports
 * (base/cxxops.def).  One that replaces all of them never calls ours;
 * one that replaces none is served by ours with the family checks.  One
 * that replaces some must see the others behave as libstdc++'s defaults
 * do: array forms call the scalar ones, nothrow forms the throwing ones,
 * sized forms the unsized ones, aligned forms likewise — through the
 * program's replacement when it made one — and the blocks its
 * replacements see come from malloc and go to free.  So then each of our
 * forms hands its call to libstdc++'s own definition of it (which calls
 * the others through the global scope, and malloc and free), and blocks
 * are of the malloc family: no false alloc-dealloc-mismatch.
 */
#ifndef CG_CXXREPL_H
#define CG_CXXREPL_H

#include "platform.h"

/* The forms, in cxxops.def's order: CG_CXX_<mangled name>. */
enum {
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) CG_CXX_##name,
#include "cxxops.def"
#undef CG_CXX_OP
    CG_CXX_FORMS
};

/* How operator new and delete are served: CG_CXX_UNKNOWN until the first
 * call of one of ours looks; CG_CXX_OURS (nothing replaced, or no
 * libstdc++ to hand to); CG_CXX_DEFAULTS (libstdc++'s definitions serve,
 * cg_cxx_default). */
enum { CG_CXX_UNKNOWN = 0, CG_CXX_OURS, CG_CXX_DEFAULTS };
extern int cg_cxx_serving CG_HIDDEN;

/* Our own definition of each form (entry/interpose.c): a program's
 * definition, when it replaces one, is not its address. */
extern void *const cg_cxx_own[CG_CXX_FORMS] CG_HIDDEN;

/*
 * cg_cxx_default - libstdc++'s definition of form (CG_CXX_*) when the
 * program replaced some form of operator new or delete, else NULL (ours
 * serve).  The first call looks up every form in the global scope (may
 * allocate, through the loader: call it before entering chunkguard);
 * later ones read what it found.  Thread-safe (racing first calls find
 * the same).
 */
void *cg_cxx_default(int form) CG_HIDDEN CG_NOINLINE;

/* In each of our forms, first: may ours not serve?  One load and a
 * predicted branch on the inline paths. */
#define CG_CXX_ROUTED() \
    (__atomic_load_n(&cg_cxx_serving, __ATOMIC_RELAXED) != CG_CXX_OURS)

#endif
