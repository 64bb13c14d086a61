/*
 * options.c — the CHUNKGUARD_OPTIONS parser (src/options.c), fuzzed
 * against an independent reference parser written here from the
 * documented grammar (docs/options.md): "key=value" pairs split on ':',
 * ',', '\r', '\n' or blanks (as ASan's flags; blanks may also stand
 * around '='); a value in '...' or "..." holds any other byte, must be
 * followed by a separator, a blank or the end (else the pair is bad), and
 * an unterminated one
 * ends the string (nothing after its '=' applies); bool
 * is exactly 0 or 1, int is decimal or 0x hex with an optional '-' and
 * must lie in [min, max], mode is fast, debug or guard, a path is shorter than
 * CG_OPT_PATH_MAX; a bad pair keeps the value before it; log_path is
 * read in a first pass.  Every field and the "given" bits must agree.
 * Also cg_expand_path: NUL-terminated within its capacity, a prefix of
 * the full expansion.
 *
 * After a '\n', the input goes on with glibc's own settings, one
 * environment entry per line (GLIBC_TUNABLES=... or MALLOC_*_=...):
 * src/tunables.c reads them, and the calls it makes to the parameter
 * setters must be exactly those of a second reference here, from the
 * contract in tunables.c (glibc 2.36's names and ranges; decimal or 0x
 * hex, the whole value; out of range or malformed: left alone; an alias
 * loses to a GLIBC_TUNABLES entry of the same tunable; GLIBC_TUNABLES
 * entries in order, then the aliases in table order).
 *
 * The parsers under test are second copies of src/options.c and
 * src/tunables.c compiled with their globals renamed (fuzz.mk:
 * -Dcg_opt=fz_opt ...), so the live allocator's options never change;
 * the tunables copy calls the recorders below instead of cg_param_set.
 * The options copy's warnings go to /dev/null.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "params.h"       /* with the renames: fz_param_set, ... (defined here) */
#include "options.h"      /* with the renames: declares fz_opt, fz_options_init */

void fz_tunables_init(void);   /* src/tunables.c's cg_tunables_init, renamed */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_no_libfuzzer_threads(argc, argv);
    return 0;
}

/* ---- the reference --------------------------------------------------- */

static cg_options_t ref;
static uint32_t ref_given;

static bool ref_int(const char *v, size_t n, long min, long max, long *out)
{
    size_t i = 0;
    bool neg = false;
    if (n > 0 && v[0] == '-')
        neg = true, i = 1;
    int base = 10;
    if (n - i >= 3 && v[i] == '0' && (v[i + 1] | 0x20) == 'x')
        base = 16, i += 2;
    if (i == n)
        return false;
    size_t digits = 0;
    long val = 0;
    for (; i < n; i++) {
        int d = v[i] >= '0' && v[i] <= '9' ? v[i] - '0'
              : base == 16 && (v[i] | 0x20) >= 'a' && (v[i] | 0x20) <= 'f' ? (v[i] | 0x20) - 'a' + 10
              : -1;
        if (d < 0)
            return false;
        if (val != 0 || d != 0)
            digits++;
        if (digits > 12)                  /* far out of every range */
            return false;
        val = val * base + d;
    }
    if (neg)
        val = -val;
    if (val < min || val > max)
        return false;
    *out = val;
    return true;
}

/* One pair; returns whether it applied.  Fields are set through the same
 * X-macro list the allocator uses, but parsed by the code above. */
static void ref_apply(const char *k, size_t kl, const char *v, size_t vl, bool first_pass)
{
    long x;
#define CG_OPTION(name, type, def, min, max, flags, help)                            \
    if (kl == strlen(#name) && memcmp(k, #name, kl) == 0) {                          \
        if (first_pass != (strcmp(#name, "log_path") == 0))                          \
            return;                                                                  \
        const char *t = #type;                                                       \
        bool ok = false;                                                             \
        if (strcmp(t, "bool") == 0 && vl == 1 && (v[0] == '0' || v[0] == '1'))      \
            x = v[0] - '0', ok = true;                                               \
        else if (strcmp(t, "int") == 0)                                              \
            ok = ref_int(v, vl, (min), (max), &x);                                   \
        else if (strcmp(t, "mode") == 0 && vl == 4 && !memcmp(v, "fast", 4))         \
            x = 0, ok = true;                                                        \
        else if (strcmp(t, "mode") == 0 && vl == 5 && !memcmp(v, "debug", 5))        \
            x = 1, ok = true;                                                        \
        else if (strcmp(t, "mode") == 0 && vl == 5 && !memcmp(v, "guard", 5))        \
            x = 2, ok = true;                                                        \
        else if (strcmp(t, "path") == 0 && vl < CG_OPT_PATH_MAX)                   \
            ok = true;                                                               \
        if (ok) {                                                                    \
            ref_given |= 1u << CG_OPT_ID_##name;                                     \
            if (strcmp(t, "path") == 0) {                                            \
                char *dst = (char *)(void *)&ref.name;                               \
                memcpy(dst, v, vl);                                                  \
                dst[vl] = 0;                                                         \
            } else if (strcmp(t, "bool") == 0) {                                     \
                *(bool *)(void *)&ref.name = x != 0;                                 \
            } else {                                                                 \
                *(int *)(void *)&ref.name = (int)x;                                  \
            }                                                                        \
        }                                                                            \
        return;                                                                      \
    }
#include "options.def"
#undef CG_OPTION
}

/* The pair separators (docs/options.md, as ASan's flag parser): ':' ','
 * '\r' and, in a string that holds them (the harness's input stops at
 * its first '\n'), '\n'; and the blanks, ' ' '\t', which may also stand
 * around the '='. */
static bool ref_hard(char c)
{
    return c == ':' || c == ',' || c == '\n' || c == '\r';
}

static bool ref_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Words: a key runs to '=', a separator or a blank; an unquoted value to
 * a separator or a blank.  A key not followed (after blanks) by '=' is
 * skipped alone.  After a closing quote comes a separator, a blank or the
 * end, else the pair is bad and is skipped up to one of them. */
static void ref_parse(const char *s, bool first_pass)
{
    size_t n = strlen(s), i = 0;
#define REF_END(j) ((j) >= n || ref_hard(s[j]) || ref_blank(s[j]))
    for (;;) {
        while (i < n && (ref_hard(s[i]) || ref_blank(s[i])))
            i++;
        if (i >= n)
            return;
        size_t k = i;
        while (!REF_END(i) && s[i] != '=')
            i++;
        size_t kl = i - k;
        while (i < n && ref_blank(s[i]))
            i++;
        if (i >= n || s[i] != '=') {
            if (kl == 0)
                i++;                          /* cannot happen: a word ends here */
            continue;
        }
        i++;
        while (i < n && ref_blank(s[i]))
            i++;
        size_t v = i, vl;
        bool good = true;
        if (i < n && (s[i] == '\'' || s[i] == '"')) {
            const char *q = memchr(s + i + 1, s[i], n - i - 1);
            if (q == NULL)
                return;                       /* unterminated: the end */
            v = i + 1;
            vl = (size_t)(q - s) - v;
            i = (size_t)(q - s) + 1;
            good = REF_END(i);
            while (!REF_END(i))
                i++;
        } else {
            while (!REF_END(i))
                i++;
            vl = i - v;
        }
        if (good)
            ref_apply(s + k, kl, s + v, vl, first_pass);
    }
#undef REF_END
}

/* ---- glibc's tunables --------------------------------------------------- */

/* A setter call: (kind, param, value); kind 0 mallopt, 1 tcache_count,
 * 2 tcache_max. */
typedef struct call { int kind, param; unsigned long v; } call_t;
#define MAX_CALLS 128
static call_t got[MAX_CALLS], want[MAX_CALLS];
static size_t ngot, nwant;

static void record(call_t *log, size_t *n, int kind, int param, unsigned long v)
{
    if (*n < MAX_CALLS)
        log[*n] = (call_t){ kind, param, v };
    (*n)++;
}

int fz_param_set(int param, long value, const cg_call_t *call)
{
    if (call->mt)
        fz_fail("tunables: cg_param_set called with mt set at start-up");
    record(got, &ngot, 0, param, (unsigned long)value);
    return 1;
}

bool fz_param_set_tcache_count(unsigned long n)
{
    record(got, &ngot, 1, 0, n);
    return true;
}

bool fz_param_set_tcache_max(unsigned long bytes)
{
    record(got, &ngot, 2, 0, bytes);
    return true;
}

/* glibc 2.36's malloc tunables (elf/dl-tunables.list): name, environment
 * alias, setter, mallopt parameter, range. */
static const struct {
    const char *name, *alias;
    int kind, param;
    unsigned long min, max;
} tun[] = {
    { "mmap_threshold", "MALLOC_MMAP_THRESHOLD_", 0, M_MMAP_THRESHOLD, 0, ULONG_MAX },
    { "trim_threshold", "MALLOC_TRIM_THRESHOLD_", 0, M_TRIM_THRESHOLD, 0, ULONG_MAX },
    { "top_pad", "MALLOC_TOP_PAD_", 0, M_TOP_PAD, 0, ULONG_MAX },
    { "mmap_max", "MALLOC_MMAP_MAX_", 0, M_MMAP_MAX, 0, INT_MAX },
    { "arena_max", "MALLOC_ARENA_MAX", 0, M_ARENA_MAX, 1, ULONG_MAX },
    { "perturb", "MALLOC_PERTURB_", 0, M_PERTURB, 0, 255 },
    { "mxfast", NULL, 0, M_MXFAST, 0, 160 },
    { "tcache_count", NULL, 1, 0, 0, 65535 },
    { "tcache_max", NULL, 2, 0, 0, 1032 },
};
#define NTUN (sizeof tun / sizeof tun[0])
static const char *const env_names[] = {
    "GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
    "MALLOC_MMAP_MAX_", "MALLOC_ARENA_MAX", "MALLOC_PERTURB_",
};
#define NENV (sizeof env_names / sizeof env_names[0])

/* The whole of v[0..n) as decimal or 0x/0X hex without overflow. */
static bool ref_ulong(const char *v, size_t n, unsigned long *out)
{
    unsigned long x = 0;
    unsigned base = n > 2 && v[0] == '0' && (v[1] | 0x20) == 'x' ? 16 : 10;
    size_t i = base == 16 ? 2 : 0;
    if (i == n)
        return false;
    for (; i < n; i++) {
        char c = v[i], lc = (char)(c | 0x20);
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : base == 16 && lc >= 'a' && lc <= 'f' ? (unsigned)(lc - 'a' + 10) : 99;
        if (d >= base || __builtin_mul_overflow(x, base, &x) || __builtin_add_overflow(x, d, &x))
            return false;
    }
    *out = x;
    return true;
}

static void ref_tunable(size_t t, const char *v, size_t n)
{
    unsigned long x;
    if (ref_ulong(v, n, &x) && x >= tun[t].min && x <= tun[t].max)
        record(want, &nwant, tun[t].kind, tun[t].param, x);
}

/* The reference: GLIBC_TUNABLES first, then the aliases it did not name. */
static void ref_tunables(void)
{
    bool named[NTUN] = { false };
    const char *s = getenv("GLIBC_TUNABLES");
    static const char pre[] = "glibc.malloc.";
    for (size_t len; s != NULL && *s; s += len + (s[len] == ':')) {
        len = strcspn(s, ":");
        const char *eq = memchr(s, '=', len);
        if (eq == NULL || len < sizeof pre - 1 || strncmp(s, pre, sizeof pre - 1) != 0)
            continue;
        const char *name = s + sizeof pre - 1;
        for (size_t t = 0; t < NTUN; t++)
            if (strlen(tun[t].name) == (size_t)(eq - name) &&
                strncmp(name, tun[t].name, (size_t)(eq - name)) == 0) {
                named[t] = true;
                ref_tunable(t, eq + 1, len - (size_t)(eq + 1 - s));
                break;
            }
    }
    for (size_t t = 0; t < NTUN; t++) {
        const char *v = tun[t].alias ? getenv(tun[t].alias) : NULL;
        if (v != NULL && !named[t])
            ref_tunable(t, v, strlen(v));
    }
}

/* env: lines "NAME=value"; only glibc's malloc variables are set. */
static void check_tunables(char *env)
{
    for (size_t i = 0; i < NENV; i++)
        unsetenv(env_names[i]);
    for (char *line = env, *next; line != NULL; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = 0;
        char *eq = strchr(line, '=');
        if (eq == NULL)
            continue;
        *eq = 0;
        for (size_t i = 0; i < NENV; i++)
            if (strcmp(line, env_names[i]) == 0)
                setenv(line, eq + 1, 1);
        *eq = '=';
    }
    ngot = nwant = 0;
    fz_tunables_init();
    ref_tunables();
    if (ngot != nwant)
        fz_fail("tunables: %zu setter call(s), the reference makes %zu", ngot, nwant);
    for (size_t i = 0; i < ngot && i < MAX_CALLS; i++)
        if (got[i].kind != want[i].kind || got[i].param != want[i].param || got[i].v != want[i].v)
            fz_fail("tunables: call %zu is (%d, %d, %lu), the reference's (%d, %d, %lu)", i,
                    got[i].kind, got[i].param, got[i].v, want[i].kind, want[i].param,
                    want[i].v);
    for (size_t i = 0; i < NENV; i++)
        unsetenv(env_names[i]);
}

/* ---- the test ---------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_assert_single_threaded();
    if (size > 4096)
        return 0;
    /* byte 0: the capacity given to cg_expand_path; then the options */
    size_t cap = size > 0 ? data[0] : 0;
    if (size > 0)
        data++, size--;
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;                          /* the environment stops at a NUL */
    char *env = strchr(s, '\n');          /* glibc's variables follow */
    if (env != NULL)
        *env++ = 0;

    /* the reference: defaults (as the allocator's own set_defaults), then s */
    fz_opt_given = 0;                     /* once per process in the allocator */
    fz_options_init();                    /* with no CHUNKGUARD_OPTIONS: defaults */
    ref = fz_opt;
    ref_given = 0;
    ref_parse(s, true);
    ref_parse(s, false);

    setenv("CHUNKGUARD_OPTIONS", s, 1);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(null);
    fz_opt_given = 0;
    fz_options_init();
    dup2(saved, 2);
    close(saved);
    unsetenv("CHUNKGUARD_OPTIONS");

    if (fz_opt_given != ref_given)
        fz_fail("options '%s': given bits %#x, reference %#x", s, fz_opt_given, ref_given);
#define CG_OPTION(name, type, def, min, max, flags, help)                             \
    if (memcmp(&fz_opt.name, &ref.name, sizeof ref.name) != 0)                        \
        fz_fail("options '%s': %s differs from the reference parser", s, #name);
#include "options.def"
#undef CG_OPTION

    /* cg_expand_path into a buffer of the input's first byte of capacity */
    if (cap > 0) {
        char out[256], full[CG_OPT_PATH_MAX * 16 + 64];
        memset(out, 0x55, sizeof out);
        fz_expand_path(out, cap, fz_opt.log_path);
        size_t n = strnlen(out, cap);
        if (n >= cap)
            fz_fail("cg_expand_path: no NUL within %zu bytes", cap);
        size_t o = 0;
        char pid[24];
        int pl = snprintf(pid, sizeof pid, "%d", (int)getpid());
        for (const char *p = fz_opt.log_path; *p; p++) {
            if (p[0] == '%' && p[1] == 'p') {
                memcpy(full + o, pid, (size_t)pl);
                o += (size_t)pl;
                p++;
            } else {
                full[o++] = *p;
            }
        }
        full[o] = 0;
        if (strncmp(out, full, n) != 0)
            fz_fail("cg_expand_path('%s', %zu) = '%s', not a prefix of '%s'", fz_opt.log_path,
                    cap, out, full);
    }
    if (env != NULL)
        check_tunables(env);
    free(s);
    return 0;
}
