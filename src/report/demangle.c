/*
 * demangle.c — C++ (Itanium ABI) names demangled without malloc, by
 * libiberty's demangler (Debian's libiberty-dev; the one binutils'
 * c++filt and addr2line -C print with).
 *
 * cplus_demangle_v3_callback writes the name through a callback and keeps
 * its work arrays on the stack: about 87 bytes of stack per byte of
 * mangled name (docs/proposals.md), so names are demangled only up to
 * CG_SYM_FUNC_MAX - 1 bytes on the caller's stack (at most 28.4 KB of
 * stack measured over the 37730 such names of libLLVM-14, within the
 * CG_REPORT_ROOM a report runs with); longer ones, up to CG_DEMANGLE_MAX
 * bytes, on a stack mapped for the call, sized by the name.  The build links cp-demangle.o of
 * libiberty.a with its symbols made local and the entry point renamed
 * cg_iberty_demangle_cb (Makefile, $(BUILD)/iberty.o), so that it cannot
 * clash with a program's own libiberty.
 */
#include "symbolize.h"

#include <string.h>
#include <sys/mman.h>

/* libiberty's cplus_demangle_v3_callback, renamed (libiberty/demangle.h) */
typedef void (*cg_iberty_cb_t)(const char *, size_t, void *);
int cg_iberty_demangle_cb(const char *mangled, int options, cg_iberty_cb_t cb, void *opaque);
#define IBERTY_DMGL_PARAMS (1 << 0)   /* DMGL_PARAMS: print the parameters */
#define IBERTY_DMGL_ANSI (1 << 1)     /* DMGL_ANSI: and const, volatile    */

typedef struct sink {
    char *out;
    size_t cap, len;      /* len < cap: out[len] is the NUL */
    bool cut;             /* some of the name did not fit */
} sink_t;

/* The demangled name is longer than the mangled one: what does not fit is
 * cut, ending in "..." (a longer name was there), not thrown away. */
static void put(const char *s, size_t n, void *opaque)
{
    sink_t *k = opaque;
    if (n > k->cap - 1 - k->len) {
        n = k->cap - 1 - k->len;
        k->cut = true;
    }
    memcpy(k->out + k->len, s, n);
    k->len += n;
    k->out[k->len] = 0;
}

typedef struct job {
    const char *sym;
    sink_t *k;
    int ok;
} job_t;

static void run(void *arg)
{
    job_t *j = arg;
    j->ok = cg_iberty_demangle_cb(j->sym, IBERTY_DMGL_PARAMS | IBERTY_DMGL_ANSI, put, j->k);
}

bool cg_demangle(const char *sym, char *out, size_t cap)
{
    size_t n = strnlen(sym, CG_DEMANGLE_MAX + 1);
    if (cap == 0 || sym[0] != '_' || sym[1] != 'Z' || n > CG_DEMANGLE_MAX)
        return false;
    sink_t k = { out, cap, 0, false };
    job_t j = { sym, &k, 0 };
    out[0] = 0;
    if (n < CG_SYM_FUNC_MAX - 1) {
        run(&j);                 /* within the CG_REPORT_ROOM a report has */
    } else {
        /* a long name: on a stack mapped for it, ~87 bytes a byte of the
         * name measured (docs/proposals.md), twice that and 64 KiB kept */
        size_t len = ((n * 176 + 65536) + cg_pagesize - 1) & ~(cg_pagesize - 1);
        char *map = cg_os_map(len + cg_pagesize);
        if (map == NULL)
            return false;
        cg_os_protect(map, cg_pagesize, PROT_NONE);       /* an overflow faults */
        cg_os_call_on_stack(run, &j, map + cg_pagesize + len);
        cg_os_unmap(map, len + cg_pagesize);
    }
    if (!j.ok || k.len == 0) {
        out[0] = 0;
        return false;
    }
    if (k.cut && cap >= 4)
        memcpy(out + cap - 4, "...", 4);
    return true;
}
