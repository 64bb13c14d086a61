/*
 * cxxrepl.c — a program's replacements of operator new and delete: found
 * on the first call of one of ours, then libstdc++'s defaults serve
 * (cxxrepl.h).
 */
#include "cxxrepl.h"

#ifndef CHUNKGUARD_PREFIXED

int cg_cxx_serving = CG_CXX_UNKNOWN;

static const char *const form_names[CG_CXX_FORMS] = {
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) #name,
#include "cxxops.def"
#undef CG_CXX_OP
};

/* libstdc++'s definitions, by form, when they serve */
static void *defaults[CG_CXX_FORMS];

/* Does the program replace a form?  The global scope's first definition
 * of one is not ours: the program's (a preloaded chunkguard comes before
 * libstdc++; a program linked with libchunkguard.a exports ours, weak,
 * unless it defines its own). */
static bool program_replaces(void)
{
    for (int i = 0; i < CG_CXX_FORMS; i++) {
        void *fn = cg_os_global_function(form_names[i]);
        if (fn != NULL && fn != cg_cxx_own[i])
            return true;
    }
    return false;
}

/* Look once: CG_CXX_DEFAULTS needs libstdc++'s definition of every form
 * (never one of ours); else ours serve. */
static int look(void)
{
    int how = CG_CXX_OURS;
    if (program_replaces()) {
        how = CG_CXX_DEFAULTS;
        for (int i = 0; i < CG_CXX_FORMS; i++) {
            void *fn = cg_os_cxx_function(form_names[i], true);
            if (fn == NULL || fn == cg_cxx_own[i])
                how = CG_CXX_OURS;
            defaults[i] = fn;
        }
    }
    __atomic_store_n(&cg_cxx_serving, how, __ATOMIC_RELEASE);
    return how;
}

void *cg_cxx_default(int form)
{
    int how = __atomic_load_n(&cg_cxx_serving, __ATOMIC_ACQUIRE);
    if (how == CG_CXX_UNKNOWN)
        how = look();
    return how == CG_CXX_DEFAULTS ? defaults[form] : NULL;
}

#endif /* !CHUNKGUARD_PREFIXED */
