/*
 * options.c — the CHUNKGUARD_OPTIONS parser (see options.def).
 */
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "report.h"

cg_options_t cg_opt;

static void warn(const char *what, const char *key, size_t keylen)
{
    char buf[256];
    char k[64];
    size_t n = keylen < sizeof k - 1 ? keylen : sizeof k - 1;
    memcpy(k, key, n);
    k[n] = 0;
    size_t len = cg_fmt(buf, sizeof buf, "==%d==WARNING: chunkguard: %s '%s' in "
                        "CHUNKGUARD_OPTIONS; keeping the default\n", (int)getpid(), what, k);
    cg_os_write_all(2, buf, len);
}

static bool parse_bool(const char *v, size_t n, bool *out)
{
    if (n == 1 && (v[0] == '0' || v[0] == '1')) {
        *out = v[0] == '1';
        return true;
    }
    return false;
}

static bool parse_string(const char *v, size_t n, char *out)
{
    if (n >= CG_OPT_STRING_MAX)
        return false;
    memcpy(out, v, n);
    out[n] = 0;
    return true;
}

static void set_defaults(void)
{
#define CG_DEF_bool(name, def)   cg_opt.name = (def);
#define CG_DEF_string(name, def) parse_string(def, strlen(def), cg_opt.name);
#define CG_OPTION(name, type, def, is_path, help) CG_DEF_##type(name, def)
#include "options.def"
#undef CG_OPTION
}

static void apply(const char *key, size_t klen, const char *val, size_t vlen, bool secure)
{
#define CG_OPTION(name, type, def, is_path, help)                               \
    if (klen == sizeof(#name) - 1 && memcmp(key, #name, klen) == 0) {           \
        if ((is_path) && secure) {                                              \
            warn("path option ignored in a set-uid process:", key, klen);       \
            return;                                                             \
        }                                                                       \
        if (!parse_##type(val, vlen, (void *)&cg_opt.name))                     \
            warn("bad value for", key, klen);                                   \
        return;                                                                 \
    }
#include "options.def"
#undef CG_OPTION
    warn("unknown option", key, klen);
}

static void print_help(void)
{
    char buf[512];
    size_t n = cg_fmt(buf, sizeof buf, "==%d== chunkguard options (CHUNKGUARD_OPTIONS=key=value:...):\n",
                      (int)getpid());
    cg_os_write_all(2, buf, n);
#define CG_OPTION(name, type, def, is_path, help)                               \
    n = cg_fmt(buf, sizeof buf, "  %s (%s, default '%s'): %s\n", #name, #type, #def, help); \
    cg_os_write_all(2, buf, n);
#include "options.def"
#undef CG_OPTION
}

void cg_options_init(void)
{
    set_defaults();
    const char *s = getenv("CHUNKGUARD_OPTIONS");
    if (s == NULL)
        return;
    bool secure = getauxval(AT_SECURE) != 0;
    while (*s) {
        const char *end = strchr(s, ':');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        if (len > 0) {
            if (eq == NULL)
                warn("option without '=':", s, len);
            else
                apply(s, (size_t)(eq - s), eq + 1, len - (size_t)(eq - s) - 1, secure);
        }
        s += len;
        if (*s == ':')
            s++;
    }
    if (cg_opt.help)
        print_help();
}
