/*
 * cxx.c — what operator new does when no block can be had (api.h,
 * cg_new_failed), as libstdc++'s own operator new does it (GCC 12,
 * libsupc++ new_op.cc, new_opnt.cc, new_opa.cc, new_opant.cc; C++17
 * [new.delete.single]):
 *
 *   - a throwing form calls the installed new_handler (std::get_new_handler)
 *     and tries again, as long as one is installed; then it throws
 *     std::bad_alloc.  An alignment that is not a power of two fails at
 *     once, without the handler;
 *   - a nothrow form returns NULL — at once when no handler is installed;
 *     with one, through libstdc++'s own nothrow form, which calls our
 *     throwing form and catches what it throws (a handler may throw
 *     std::bad_alloc itself: that must come out as NULL, and only C++ can
 *     catch it).  Where libstdc++.so.6 is not loaded (a program with the
 *     runtime linked statically) the handler is called directly: a throw
 *     from it then leaves the nothrow form, which the caller's noexcept
 *     turns into std::terminate.
 *
 * chunkguard is C and must not load the C++ runtime into a C program, so
 * the runtime's functions are looked up only here, only when an
 * allocation has failed (a C program never gets here, or gets here
 * through a mangled name it called itself):
 *   - weak references, which a program that links libchunkguard.a and the
 *     C++ runtime statically (libstdc++.a) fills at link time, and a
 *     preloaded libchunkguard.so at load time when the program was linked
 *     with libstdc++.so (neither pulls the runtime in, and a C program
 *     leaves them NULL: libchunkguard.so needs no libstdc++);
 *   - else the loader (cg_os_cxx_function): libstdc++.so.6 loaded later
 *     (dlopen, RTLD_LOCAL too), or another runtime (libc++).
 * Without a runtime there is nothing to throw with: a throwing form then
 * says so in the log and aborts, as libstdc++ built without exceptions
 * does.
 *
 * Everything here runs outside chunkguard (the attempt that failed has
 * left the re-entry mark and every lock), so the handler, the throw (which
 * unwinds through these C frames: their unwind tables are
 * -fasynchronous-unwind-tables', gcc's default on x86_64) and the
 * loader's lookups may allocate.
 */
#include "api.h"

#include "fmt.h"
#include "log.h"

typedef void (*new_handler_t)(void);

/* libstdc++'s std::get_new_handler() and std::__throw_bad_alloc() (which
 * throws std::bad_alloc()), when the program links them in. */
extern new_handler_t _ZSt15get_new_handlerv(void) __attribute__((weak));
extern void _ZSt17__throw_bad_allocv(void) __attribute__((weak, noreturn));

/* The runtime's function name: the weak reference when filled, else the
 * loader's. */
static void *runtime_function(void *weak, const char *name)
{
    return weak != NULL ? weak : cg_os_cxx_function(name, false);
}

static new_handler_t current_handler(void)
{
    new_handler_t (*get)(void) = (new_handler_t (*)(void))runtime_function(
        (void *)_ZSt15get_new_handlerv, "_ZSt15get_new_handlerv");
    return get != NULL ? get() : NULL;
}

/* libstdc++'s own nothrow forms, by family (plain forms take (size,
 * const std::nothrow_t &), aligned ones (size, std::align_val_t, const
 * std::nothrow_t &)). */
/* Each new family's nothrow form, by its mangled name: the NEW_NOTHROW
 * rows of base/cxxops.def. */
#define NOTHROW_FORM_NEW(name, family)
#define NOTHROW_FORM_DELETE(name, family)
#define NOTHROW_FORM_NEW_NOTHROW(name, family) [family] = #name,
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) \
    NOTHROW_FORM_##kind(name, family)
static const char *const nothrow_forms[CG_FAMILY_COUNT] = {
#include "cxxops.def"
};
#undef CG_CXX_OP
#undef NOTHROW_FORM_NEW
#undef NOTHROW_FORM_DELETE
#undef NOTHROW_FORM_NEW_NOTHROW
static const char nothrow_tag;     /* std::nothrow, an empty object: never read */

/* The nothrow form of family through libstdc++'s own definition (which
 * calls our throwing form, handler loop and all, and catches what it
 * throws).  False when libstdc++ is not loaded: *out untouched. */
static bool nothrow_via_runtime(size_t n, size_t align, int family, void **out)
{
    void *fn = cg_os_cxx_function(nothrow_forms[family], true);
    if (fn == NULL)
        return false;
    if (family == CG_FAMILY_NEW_ALIGNED || family == CG_FAMILY_NEW_ARRAY_ALIGNED)
        *out = ((void *(*)(size_t, size_t, const void *))fn)(n, align, &nothrow_tag);
    else
        *out = ((void *(*)(size_t, const void *))fn)(n, &nothrow_tag);
    return true;
}

void *cg_new_failed(size_t n, size_t align, int how, uintptr_t caller)
{
    int family = CG_NEW_FAMILY(how);
    bool nothrow = (how & CG_NEW_NOTHROW) != 0;
    new_handler_t handler;
    while ((align & (align - 1)) == 0 && (handler = current_handler()) != NULL) {
        void *p;
        if (nothrow && nothrow_via_runtime(n, align, family, &p))
            return p;
        handler();      /* frees memory, installs another handler, or throws */
        if ((p = cg_malloc_try(n, align, caller, family)) != NULL)
            return p;
    }
    if (nothrow)
        return NULL;
    void (*throw_bad_alloc)(void) = (void (*)(void))runtime_function(
        (void *)_ZSt17__throw_bad_allocv, "_ZSt17__throw_bad_allocv");
    if (throw_bad_alloc != NULL)
        throw_bad_alloc();
    char msg[256];
    size_t k = cg_fmt(msg, sizeof msg, "==%d==chunkguard: %s() of %zu bytes failed and no C++ "
                      "runtime is loaded to throw std::bad_alloc: aborting\n", cg_os_getpid(),
                      cg_family_new_name(family), n);
    cg_log_write(msg, k);
    cg_os_abort();
}
