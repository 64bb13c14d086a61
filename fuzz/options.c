/*
 * options.c — the CHUNKGUARD_OPTIONS parser (src/options.c), fuzzed
 * against an independent reference parser written here from the
 * documented grammar (options.def): "key=value" pairs split on ':'; bool
 * is exactly 0 or 1, int is decimal or 0x hex with an optional '-' and
 * must lie in [min, max], mode is fast or debug, a path is shorter than
 * CG_OPT_STRING_MAX; a bad pair keeps the value before it; log_path is
 * read in a first pass.  Every field and the "given" bits must agree.
 * Also cg_expand_path: NUL-terminated within its capacity, a prefix of
 * the full expansion.
 *
 * The parser under test is a second copy of src/options.c compiled with
 * its globals renamed (fuzz.mk: -Dcg_opt=fz_opt ...), so the live
 * allocator's options never change.  Its warnings go to /dev/null.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "options.h"      /* with the renames: declares fz_opt, fz_options_init */

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
        else if (strcmp(t, "mode") == 0 &&                                           \
                 ((vl == 4 && !memcmp(v, "fast", 4)) || (vl == 5 && !memcmp(v, "debug", 5)))) \
            x = vl == 5, ok = true;                                                  \
        else if (strcmp(t, "path") == 0 && vl < CG_OPT_STRING_MAX)                   \
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

static void ref_parse(const char *s, bool first_pass)
{
    char *copy = strdup(s), *save = NULL;
    /* strtok_r would merge empty fields; they are no-ops anyway */
    for (char *f = strtok_r(copy, ":", &save); f != NULL; f = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(f, '=');
        if (eq != NULL)
            ref_apply(f, (size_t)(eq - f), eq + 1, strlen(eq + 1), first_pass);
    }
    free(copy);
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
        char out[256], full[CG_OPT_STRING_MAX * 16 + 64];
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
    free(s);
    return 0;
}
