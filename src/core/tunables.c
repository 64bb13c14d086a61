/*
 * tunables.c — glibc's own malloc settings from the environment
 * (GLIBC_TUNABLES and the older MALLOC_*_ variables), so that a program
 * tuned for glibc's malloc keeps its tuning under chunkguard.
 *
 * Meanings and limits are glibc 2.36's (elf/dl-tunables.list and
 * malloc/arena.c there): GLIBC_TUNABLES is a colon-separated list of
 * name=value; values are decimal or 0x hexadecimal; a value outside
 * glibc's range leaves the setting alone.  The MALLOC_*_ variables are
 * glibc's aliases of the same tunables and lose to GLIBC_TUNABLES, as in
 * glibc.  CHUNKGUARD_OPTIONS is applied after these (options.c).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "params.h"
#include "options.h"

enum { T_PARAM, T_TCACHE_COUNT, T_TCACHE_MAX, T_CHECK };

int cg_tunable_check;

typedef struct tunable {
    const char *name;      /* after "glibc.malloc."                 */
    const char *alias;     /* environment alias, or NULL             */
    int kind;              /* T_PARAM: mallopt's param; else setter  */
    int param;             /* M_* for T_PARAM                        */
    unsigned long min, max;
} tunable_t;

static const tunable_t tunables[] = {
    { "mmap_threshold", "MALLOC_MMAP_THRESHOLD_", T_PARAM, M_MMAP_THRESHOLD, 0, (unsigned long)-1 },
    { "trim_threshold", "MALLOC_TRIM_THRESHOLD_", T_PARAM, M_TRIM_THRESHOLD, 0, (unsigned long)-1 },
    { "top_pad",        "MALLOC_TOP_PAD_",        T_PARAM, M_TOP_PAD,        0, (unsigned long)-1 },
    { "mmap_max",       "MALLOC_MMAP_MAX_",       T_PARAM, M_MMAP_MAX,       0, 0x7fffffff },
    { "arena_max",      "MALLOC_ARENA_MAX",       T_PARAM, M_ARENA_MAX,      1, (unsigned long)-1 },
    { "perturb",        "MALLOC_PERTURB_",        T_PARAM, M_PERTURB,        0, 0xff },
    { "mxfast",         NULL,                     T_PARAM, M_MXFAST,         0, 160 },
    { "tcache_count",   NULL,                     T_TCACHE_COUNT, 0,         0, 65535 },
    { "tcache_max",     NULL,                     T_TCACHE_MAX, 0,           0, 1032 },
    { "check",          "MALLOC_CHECK_",          T_CHECK, 0,                0, 3 },
};
#define NTUNABLES (sizeof tunables / sizeof tunables[0])

/* Decimal or 0x hexadecimal, the whole of s[0..n); false otherwise. */
static bool parse_ulong(const char *s, size_t n, unsigned long *out)
{
    unsigned base = 10;
    size_t i = 0;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    }
    if (i == n)
        return false;
    unsigned long v = 0;
    for (; i < n; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else return false;
        if (d >= base || v > ((unsigned long)-1 - d) / base)
            return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

static void apply(const tunable_t *t, const char *val, size_t n)
{
    unsigned long v;
    if (!parse_ulong(val, n, &v) || v < t->min || v > t->max)
        return;
    /* At initialisation, single-threaded: no program call, no lock. */
    const cg_call_t init = { .caller = 0, .op = "GLIBC_TUNABLES", .tc = NULL, .mt = false };
    switch (t->kind) {
    case T_PARAM:
        /* mmap_max is an int in mallopt; the others fit a long */
        cg_param_set(t->param, (long)v, &init);
        break;
    case T_TCACHE_COUNT:
        cg_param_set_tcache_count(v);
        break;
    case T_TCACHE_MAX:
        cg_param_set_tcache_max(v);
        break;
    case T_CHECK:
        cg_tunable_check = (int)v;    /* init.c turns it into the mode */
        break;
    }
}

/* One GLIBC_TUNABLES entry "glibc.malloc.name=value" (others ignored). */
static bool apply_entry(const char *s, size_t len, unsigned long *mask)
{
    static const char prefix[] = "glibc.malloc.";
    const char *eq = memchr(s, '=', len);
    if (eq == NULL || (size_t)(eq - s) < sizeof prefix - 1 ||
        memcmp(s, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *name = s + sizeof prefix - 1;
    size_t nl = (size_t)(eq - name);
    for (size_t i = 0; i < NTUNABLES; i++) {
        if (strlen(tunables[i].name) == nl && memcmp(name, tunables[i].name, nl) == 0) {
            apply(&tunables[i], eq + 1, len - (size_t)(eq + 1 - s));
            *mask |= 1ul << i;
            return true;
        }
    }
    return false;
}

CG_HOT_TEXT void cg_tunables_init(void)
{
    if (cg_os_getauxval(AT_SECURE) != 0)
        return;
    unsigned long set = 0;            /* tunables GLIBC_TUNABLES gave */
    const char *s = cg_os_getenv("GLIBC_TUNABLES");
    while (s != NULL && *s) {
        const char *end = strchr(s, ':');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        apply_entry(s, len, &set);
        s += len;
        if (*s == ':')
            s++;
    }
    for (size_t i = 0; i < NTUNABLES; i++) {
        const char *v;
        if (tunables[i].alias == NULL || (set >> i) & 1 || (v = cg_os_getenv(tunables[i].alias)) == NULL)
            continue;
        apply(&tunables[i], v, strlen(v));
    }
}
