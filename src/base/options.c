/*
 * options.c — the CHUNKGUARD_OPTIONS parser and the help=1 listing, both
 * generated from options.def.
 */
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "fmt.h"
#include "log.h"

cg_options_t cg_opt;
uint32_t cg_opt_given;

_Static_assert(CG_OPT_COUNT <= 32, "cg_opt_given has one bit per option");

static void warn(const char *what, const char *key, size_t keylen)
{
    char buf[320], k[64];
    size_t n = keylen < sizeof k - 1 ? keylen : sizeof k - 1;
    memcpy(k, key, n);
    k[n] = 0;
    size_t len = cg_fmt(buf, sizeof buf, "==%d==WARNING: chunkguard: %s '%s' in "
                        "CHUNKGUARD_OPTIONS; keeping the default\n", (int)cg_os_getpid(), what, k);
    cg_log_write(buf, len);
}

/* Value parsers: true and *out set when v[0..n) is a whole valid value. */
static bool parse_bool(const char *v, size_t n, long min, long max, bool *out)
{
    (void)min, (void)max;
    if (n == 1 && (v[0] == '0' || v[0] == '1')) {
        *out = v[0] == '1';
        return true;
    }
    return false;
}

/* Decimal, or hexadecimal after 0x; an optional leading '-'. */
static bool parse_int(const char *v, size_t n, long min, long max, int *out)
{
    bool neg = n > 0 && v[0] == '-';
    size_t i = neg ? 1 : 0;
    unsigned base = 10;
    if (n - i > 2 && v[i] == '0' && (v[i + 1] == 'x' || v[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    if (i == n)
        return false;
    long val = 0;
    for (; i < n; i++) {
        char c = v[i];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else return false;
        if (d >= base || val > (1L << 40))
            return false;
        val = val * (long)base + (long)d;
    }
    if (neg)
        val = -val;
    if (val < min || val > max)
        return false;
    *out = (int)val;
    return true;
}

/* mode: "fast", "debug" or "guard", the CG_OPT_MODE_* values. */
static bool parse_mode(const char *v, size_t n, long min, long max, int *out)
{
    (void)min, (void)max;
    if (n == 4 && memcmp(v, "fast", 4) == 0)
        *out = CG_OPT_MODE_FAST;
    else if (n == 5 && memcmp(v, "debug", 5) == 0)
        *out = CG_OPT_MODE_DEBUG;
    else if (n == 5 && memcmp(v, "guard", 5) == 0)
        *out = CG_OPT_MODE_GUARD;
    else
        return false;
    return true;
}

static bool parse_path(const char *v, size_t n, long min, long max, char *out)
{
    (void)min, (void)max;
    if (n >= CG_OPT_PATH_MAX)
        return false;
    memcpy(out, v, n);
    out[n] = 0;
    return true;
}

static void set_defaults(void)
{
#define CG_DEF_bool(name, def) cg_opt.name = (def);
#define CG_DEF_int(name, def)  cg_opt.name = (def);
/* An empty default is what .bss holds: not written, so the array's page
 * stays untouched (options.h).  Runs once, before any option is read. */
#define CG_DEF_path(name, def) if ((def)[0] != 0) parse_path(def, strlen(def), 0, 0, cg_opt.name);
#define CG_DEF_mode(name, def) parse_mode(def, strlen(def), 0, 0, &cg_opt.name);
#define CG_OPTION(name, type, def, min, max, flags, help) CG_DEF_##type(name, def)
#include "options.def"
#undef CG_OPTION
}

/* Apply one key=value pair; pair[0..plen) is how it was written, for the
 * warnings.  With only_log, just log_path (the first pass: warnings of the
 * second pass then go to the log the user asked for). */
static void apply(const char *key, size_t klen, const char *val, size_t vlen, size_t plen,
                  bool secure, bool only_log)
{
#define CG_OPTION(name, type, def, min, max, flags, help)                        \
    if (klen == sizeof(#name) - 1 && memcmp(key, #name, klen) == 0) {            \
        if (only_log != (CG_OPT_ID_##name == CG_OPT_ID_log_path))                \
            return;                                                              \
        if (((flags) & CG_OPT_PATH) && secure) {                                 \
            warn("path option ignored in a set-uid process:", key, klen);        \
            return;                                                              \
        }                                                                        \
        if (!parse_##type(val, vlen, (min), (max), (void *)&cg_opt.name)) {      \
            warn("bad value in", key, plen); /* key=value as written */         \
            return;                                                              \
        }                                                                        \
        cg_opt_given |= 1u << CG_OPT_ID_##name;                                  \
        return;                                                                  \
    }
#include "options.def"
#undef CG_OPTION
    if (!only_log)
        warn("unknown option", key, klen);
}

/* The separators of pairs, as ASan's flag parser takes them
 * (sanitizer_common's FlagParser::is_space): ':' ',' '\n' '\r', and the
 * blanks ' ' '\t', which also end a key or a value but may stand around
 * the '=' ("detect_leaks = 1"). */
static bool is_sep(char c)
{
    return c == ':' || c == ',' || c == '\n' || c == '\r';
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Ends a key or an unquoted value: a separator, a blank or the end. */
static bool ends_word(char c)
{
    return c == 0 || is_sep(c) || is_blank(c);
}

/* key=value pairs separated by ':', ',', a newline ('\n', '\r') or
 * blanks (spaces, tabs), any of them, as ASan's flags; blanks may also
 * stand on either side of the '='.  A value in '...' or "..." may hold
 * any of them (a path with ':', ',' or ' '): the quotes are not part of
 * it, and a separator, a blank or the end must follow the closing one.
 * Empty pairs are skipped. */
static void parse(const char *s, bool secure, bool only_log)
{
    while (*s) {
        while (is_sep(*s) || is_blank(*s))
            s++;
        if (*s == 0)
            break;
        const char *p = s;                  /* the pair starts here */
        while (!ends_word(*s) && *s != '=')
            s++;
        size_t klen = (size_t)(s - p);
        while (is_blank(*s))
            s++;
        if (*s != '=') {                    /* a word without '=' */
            if (klen > 0 && !only_log)
                warn("option without '=':", p, klen);
            if (klen == 0)
                s++;                        /* a stray character: past it */
            continue;
        }
        ++s;
        while (is_blank(*s))
            s++;
        const char *v = s;
        size_t vlen;
        bool ok = true;
        if (*v == '\'' || *v == '"') {
            const char *close = strchr(v + 1, *v);
            if (close == NULL) {            /* the rest is inside the quote */
                if (!only_log)
                    warn("unterminated quote in", p, strlen(p));
                return;
            }
            v++;
            vlen = (size_t)(close - v);
            s = close + 1;
            ok = ends_word(*s);             /* nothing between quote and separator */
            while (!ends_word(*s))
                s++;
        } else {
            while (!ends_word(*s))
                s++;
            vlen = (size_t)(s - v);
        }
        if (ok)
            apply(p, klen, v, vlen, (size_t)(s - p), secure, only_log);
        else if (!only_log)
            warn("bad value in", p, (size_t)(s - p));
    }
}

static void print_help(void)
{
    char buf[768];
    size_t n = cg_fmt(buf, sizeof buf, "==%d== chunkguard options "
                      "(CHUNKGUARD_OPTIONS=key=value:key=value; ',', newlines, blanks "
                      "too):\n", (int)cg_os_getpid());
    cg_log_write(buf, n);
#define CG_VAL_bool(name) n += cg_fmt(buf + n, sizeof buf - n, "%d", (int)cg_opt.name);
#define CG_VAL_int(name)  n += cg_fmt(buf + n, sizeof buf - n, "%d", cg_opt.name);
#define CG_VAL_path(name) n += cg_fmt(buf + n, sizeof buf - n, "'%s'", cg_opt.name);
#define CG_VAL_mode(name) n += cg_fmt(buf + n, sizeof buf - n, "%s", cg_opt_mode_name(cg_opt.name));
#define CG_OPTION(name, type, def, min, max, flags, help)                        \
    n = cg_fmt(buf, sizeof buf, "  %s=", #name);                                 \
    CG_VAL_##type(name)                                                          \
    n += cg_fmt(buf + n, sizeof buf - n, " (%s, default %s): ", #type, #def);  \
    cg_log_write(buf, n);                                                        \
    cg_log_write(help "\n", sizeof(help "\n") - 1);
#include "options.def"
#undef CG_OPTION
}

void cg_expand_path(char *out, size_t cap, const char *in)
{
    size_t o = 0;
    for (const char *s = in; *s && o + 24 < cap; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            o += cg_fmt(out + o, cap - o, "%d", (int)cg_os_getpid());
            s++;
        } else {
            out[o++] = *s;
        }
    }
    out[o] = 0;
}

/* No built-in options unless the program links its own (chunkguard.h). */
CG_HOT_TEXT __attribute__((weak)) const char *cg_default_options(void)
{
    return NULL;
}

CG_HOT_TEXT void cg_options_init(void)
{
    set_defaults();
    /* Built into the program, so trusted even in a set-uid process. */
    const char *d = cg_default_options();
    if (d != NULL) {
        parse(d, false, true);
        parse(d, false, false);
    }
    const char *s = cg_os_getenv("CHUNKGUARD_OPTIONS");
    if (s != NULL) {
        bool secure = cg_os_getauxval(AT_SECURE) != 0;
        parse(s, secure, true);
        parse(s, secure, false);
    }
    if (cg_opt.help)
        print_help();
}
