/*
 * dedup.c — a report's stable hash and the suppressions file (dedup.h).
 */
#include "dedup.h"

#include <string.h>

#include "options.h"
#include "symbolize.h"

/* ---- the hash ----------------------------------------------------------- */

#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
/* The longest suppression line taken (bytes): a token, ':' and a pattern
 * that may name a module or source file by its whole path. */
#define SUPP_LINE_MAX (CG_PATH_MAX + 64)

static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= FNV_PRIME;
    }
    return h;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b != NULL ? b + 1 : path;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The module's name as the hash reads it, into out (cap bytes): its
 * basename without the " (deleted)" /proc/self/maps adds to a file deleted
 * or replaced while mapped, and without a shared object's file version
 * (the digits and dots after ".so": libx.so.1.0.0 is libx.so), which a
 * rebuild with the same code may change.  tools/chunkguard's
 * hash_module is the same rule. */
static void hash_module(const char *module, char *out, size_t cap)
{
    const char *b = base_name(module);
    size_t n = strlen(b);
    if (ends_with(b, n, " (deleted)"))
        n -= sizeof " (deleted)" - 1;
    for (size_t i = n; i >= 3; i--) {
        if (i < n && b[i] != '.' && (b[i] < '0' || b[i] > '9'))
            break;                      /* not a version suffix */
        if (ends_with(b, i, ".so") && (i == n || b[i] == '.')) {
            n = i;
            break;
        }
    }
    if (n >= cap)
        n = cap - 1;
    memcpy(out, b, n);
    out[n] = 0;
}

/* chunkguard's own frame: its shared object's, or (linked in) a cg_
 * function's.  The rule reads only what the JSON frame shows, so that
 * tools/chunkguard can apply it too. */
static bool own_frame(const cg_frame_t *f)
{
    return strncmp(base_name(f->module), "libchunkguard", 13) == 0 ||
           strncmp(f->function, "cg_", 3) == 0;
}

const char *cg_rstack_name(const cg_rdata_t *d, size_t i)
{
    const cg_rstack_t *s = &d->stacks[i];
    if (s->key != NULL)
        return s->key;
    if (i == 0)
        return "where";
    return s->title != NULL && s->title[0] == 'f' ? "freed" : "allocated";
}

/* Was d found by the checks at exit (its "where" is the exit path, the
 * same for every such report)? */
static bool found_at_exit(const cg_rdata_t *d)
{
    return d->op != NULL && (strcmp(d->op, "exit") == 0 || strcmp(d->op, "_exit") == 0);
}

/* The stack a report is about: "where", or the first of "allocated",
 * "freed" that has frames (a report found at exit looks there first);
 * NULL when none has. */
static const cg_rstack_t *main_stack(const cg_rdata_t *d)
{
    static const char *const order[] = { "where", "allocated", "freed" };
    for (size_t o = found_at_exit(d) ? 1 : 0; o < sizeof order / sizeof order[0]; o++)
        for (size_t i = 0; i < d->nstacks; i++)
            if (d->stacks[i].n > 0 && d->stacks[i].pcs != NULL &&
                strcmp(cg_rstack_name(d, i), order[o]) == 0)
                return &d->stacks[i];
    return d->nstacks > 0 && d->stacks[0].n > 0 && d->stacks[0].pcs != NULL ? &d->stacks[0]
                                                                          : NULL;
}

/* ---- suppressions ------------------------------------------------------- */

typedef struct rule {
    int kind;                   /* CG_E_*, or CG_E_COUNT: any kind        */
    const char *token;          /* as written ("leak", "*", a token)      */
    const char *pat;            /* the pattern, anchors removed (NUL-
                                 * terminated)                            */
    size_t plen;
    bool at_start, at_end;      /* '^' / '$' given                        */
} rule_t;

static CG_BIG_BSS char supp_buf[CG_SUPP_FILE_MAX + 1];
static CG_BIG_BSS rule_t rules[CG_SUPP_RULES_MAX];
static size_t nrules;
static CG_BIG_BSS size_t hits[CG_SUPP_RULES_MAX], hit_bytes[CG_SUPP_RULES_MAX],
    hit_blocks[CG_SUPP_RULES_MAX];
static size_t total;
static int summary_done;
static CG_BIG_BSS char supp_path[CG_OPT_PATH_BUF];   /* with suppressions only */
static size_t dropped, first_dropped;    /* rules past CG_SUPP_RULES_MAX */

/* Does s match p[0, pn) with '*' as any run of characters?  any_start /
 * any_end: the match may begin / end anywhere in s (no '^' / '$').  The
 * greedy matcher with one backtrack point, linear in practice. */
static bool glob(const char *p, size_t pn, const char *s, bool any_start, bool any_end)
{
    size_t pi = 0, si = 0, sn = strlen(s);
    size_t star_p = (size_t)-1, star_s = 0;
    if (any_start)
        star_p = 0;             /* an implicit '*' before the pattern */
    while (si < sn) {
        if (pi < pn && p[pi] == '*') {
            star_p = ++pi;
            star_s = si;
        } else if (pi < pn && p[pi] == s[si]) {
            pi++;
            si++;
        } else if (pi == pn && any_end) {
            return true;        /* an implicit '*' after it takes the rest */
        } else if (star_p != (size_t)-1) {
            pi = star_p;
            si = ++star_s;
        } else {
            return false;
        }
    }
    while (pi < pn && p[pi] == '*')
        pi++;
    return pi == pn;
}

static bool rule_matches(const rule_t *r, const char *s)
{
    return s != NULL && s[0] != 0 && glob(r->pat, r->plen, s, !r->at_start, !r->at_end);
}

/* Does rule r match frame f, or one of the nfr functions the symbolizer
 * gave for its address (fr: innermost inlined first, the function the
 * code is in last; each by name or source file)?  Every function of the
 * frame, inlined ones too, as LeakSanitizer's matching. */
static bool frame_matches(const rule_t *r, const cg_frame_t *f, const cg_sym_inline_t *fr,
                          size_t nfr)
{
    if (rule_matches(r, f->function) || rule_matches(r, f->symbol) ||
        rule_matches(r, f->module) || rule_matches(r, base_name(f->module)))
        return true;
    for (size_t k = 0; k < nfr; k++)
        if (rule_matches(r, fr[k].function) || rule_matches(r, fr[k].file))
            return true;
    return false;
}

static void warn(size_t line, const char *why)
{
    char buf[CG_OPT_PATH_BUF + 256];
    size_t n;
    if (line)
        n = cg_fmt(buf, sizeof buf, "==%d==WARNING: chunkguard: suppressions %s:%zu: %s\n",
                   cg_os_getpid(), supp_path, line, why);
    else
        n = cg_fmt(buf, sizeof buf, "==%d==WARNING: chunkguard: suppressions %s: %s\n",
                   cg_os_getpid(), supp_path, why);
    cg_log_write(buf, n);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The kind token t names: a report token, "leak" (LeakSanitizer's word
 * for memory-leak) or "*" (any: CG_E_COUNT); -1 for none. */
static int kind_of(const char *t)
{
    if (strcmp(t, "*") == 0)
        return CG_E_COUNT;
    if (strcmp(t, "leak") == 0)
        return CG_E_MEMORY_LEAK;
    for (int k = 0; k < CG_E_COUNT; k++)
        if (strcmp(t, cg_error_token((cg_error_t)k)) == 0)
            return k;
    return -1;
}

/* One line, NUL-terminated in place (number lineno): a rule, nothing (a
 * blank line or a comment), or a warning. */
static void parse_line(char *s, size_t lineno)
{
    while (is_space(*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && is_space(end[-1]))
        *--end = 0;
    if (*s == 0 || *s == '#')
        return;
    char *colon = strchr(s, ':');
    if (colon == NULL) {
        warn(lineno, "not token:pattern; line ignored");
        return;
    }
    char *tend = colon;
    while (tend > s && is_space(tend[-1]))
        tend--;
    *tend = 0;
    char *p = colon + 1;
    while (is_space(*p))
        p++;
    int kind = kind_of(s);
    if (kind < 0) {
        warn(lineno, "unknown report kind (a token such as double-free, leak, or *); "
                     "line ignored");
        return;
    }
    rule_t r = { kind, s, p, strlen(p), false, false };
    if (r.plen > 0 && r.pat[0] == '^') {
        r.at_start = true;
        r.pat++;
        r.plen--;
    }
    if (r.plen > 0 && r.pat[r.plen - 1] == '$') {
        r.at_end = true;
        p[r.pat - p + --r.plen] = 0;
    }
    if (r.plen == 0) {
        warn(lineno, "empty pattern; line ignored");
        return;
    }
    if (nrules == CG_SUPP_RULES_MAX) {
        if (dropped++ == 0)
            first_dropped = lineno;
        return;                 /* one warning for them all, cg_supp_init */
    }
    rules[nrules++] = r;
}

CG_HOT_TEXT void cg_supp_init(void)
{
    if (cg_opt.suppressions[0] == 0)
        return;
    cg_expand_path(supp_path, sizeof supp_path, cg_opt.suppressions);
    cg_os_file_id_t id;
    int fd = cg_os_open_file(supp_path, &id);
    const char *map = fd >= 0 ? cg_os_map_fd(fd, id.size) : NULL;
    if (fd >= 0)
        cg_os_close(fd);
    if (map == NULL) {
        warn(0, "cannot be read (missing, empty or not a regular file); no report is "
                "suppressed");
        return;
    }
    size_t len = id.size;
    if (len > CG_SUPP_FILE_MAX) {
        warn(0, "longer than 65536 bytes: the lines after that are ignored");
        len = CG_SUPP_FILE_MAX;
    }
    memcpy(supp_buf, map, len);
    cg_os_unmap((void *)map, id.size);
    if (id.size > CG_SUPP_FILE_MAX)
        while (len > 0 && supp_buf[len - 1] != '\n')
            len--;              /* no half line */
    supp_buf[len] = 0;
    size_t lineno = 1;
    for (char *s = supp_buf; *s; lineno++) {
        char *nl = strchr(s, '\n');
        if (nl != NULL)
            *nl = 0;
        if (strlen(s) > SUPP_LINE_MAX) {
            char why[64];
            cg_fmt(why, sizeof why, "line longer than %zu bytes; line ignored",
                   (size_t)SUPP_LINE_MAX);
            warn(lineno, why);
        }
        else
            parse_line(s, lineno);
        if (nl == NULL)
            break;
        s = nl + 1;
    }
    if (dropped > 0) {
        char why[96];
        cg_fmt(why, sizeof why, "%zu rule(s) past the first 256 ignored (from line %zu on)",
               dropped, first_dropped);
        warn(0, why);
    }
}

bool cg_supp_active(void)
{
    return nrules > 0;
}

void cg_supp_count(int rule, size_t bytes, size_t blocks)
{
    if (rule < 0 || (size_t)rule >= nrules)
        return;
    __atomic_fetch_add(&hits[rule], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&hit_bytes[rule], bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&hit_blocks[rule], blocks, __ATOMIC_RELAXED);
    __atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);
}

size_t cg_supp_total(void)
{
    return __atomic_load_n(&total, __ATOMIC_RELAXED);
}

CG_FORK_PATH void cg_supp_after_fork_child(void)
{
    /* Without rules the counts were never written: their pages (.lbss)
     * stay untouched in the child. */
    if (nrules > 0) {
        memset(hits, 0, sizeof hits);
        memset(hit_bytes, 0, sizeof hit_bytes);
        memset(hit_blocks, 0, sizeof hit_blocks);
    }
    /* Stored only when set: a page the child does not write is not
     * copied for it (a fork's child takes a fault and a copy per page it
     * writes; docs/performance.md, "fork13b"). */
    if (total != 0)
        total = 0;
    if (summary_done != 0)
        summary_done = 0;
}

CG_HOT_TEXT void cg_supp_summary(void)
{
    size_t n = cg_supp_total();
    if (n == 0 || __atomic_exchange_n(&summary_done, 1, __ATOMIC_ACQ_REL))
        return;
    char buf[CG_OPT_PATH_BUF + CG_SYM_FUNC_MAX + CG_SYM_MODULE_MAX + 160];
    size_t w = cg_fmt(buf, sizeof buf, "==%d==chunkguard: %zu report(s) suppressed "
                      "(suppressions=%s):\n", cg_os_getpid(), n, supp_path);
    cg_log_write(buf, w);
    for (size_t i = 0; i < nrules; i++) {
        size_t h = __atomic_load_n(&hits[i], __ATOMIC_RELAXED);
        if (h == 0)
            continue;
        w = cg_fmt(buf, sizeof buf, "    %zu %s:%s%s%s", h, rules[i].token,
                   rules[i].at_start ? "^" : "", rules[i].pat, rules[i].at_end ? "$" : "");
        if (hit_blocks[i] > 0)
            w += cg_fmt(buf + w, sizeof buf - w, ": %zu byte(s) in %zu allocation(s)",
                        hit_bytes[i], hit_blocks[i]);
        w += cg_fmt(buf + w, sizeof buf - w, "\n");
        cg_log_write(buf, w);
    }
}

/* ---- one report --------------------------------------------------------- */

/* The lowest-numbered rule of want[] that the frame at pc (is_return as
 * for cg_symbolize_frame; f: its names) matches, if lower than best;
 * else best.  Its inlined functions and source files come from the
 * calling thread's open symbolizer batch (none when no batch is open:
 * symbolize=0); the report code opens the batch before it decides on
 * suppressions (render.c, emit_body). */
static int best_rule(const bool *want, const cg_frame_t *f, uintptr_t pc, bool is_return,
                     int best)
{
    const cg_sym_inline_t *fr = NULL;
    size_t nfr = cg_sym_lookup(pc, is_return, &fr);
    for (size_t r = 0; r < nrules && (best < 0 || (int)r < best); r++)
        if (want[r] && frame_matches(&rules[r], f, fr, nfr))
            return (int)r;
    return best;
}

void cg_dedup_compute(const cg_rdata_t *d, cg_dedup_t *out)
{
    static const char hex[] = "0123456789abcdef";
    const char *token = cg_error_token(d->kind);
    uint64_t h = fnv(FNV_BASIS, token);
    size_t kept = 0, tn = 0;
    bool named = false;         /* a frame with a symbol has entered */
    char first_mod[CG_SYM_MODULE_MAX];   /* the module of the first frame kept */
    first_mod[0] = 0;
    out->top[0] = 0;
    out->rule = -1;
    /* the rules for this kind: they look at every frame of every stack */
    bool want[CG_SUPP_RULES_MAX];
    bool any = false;
    for (size_t r = 0; r < nrules; r++) {
        want[r] = rules[r].kind == CG_E_COUNT || rules[r].kind == (int)d->kind;
        any |= want[r];
    }
    const cg_rstack_t *s = main_stack(d);
    for (size_t j = 0; any && j < d->nstacks; j++) {
        const cg_rstack_t *o = &d->stacks[j];
        for (size_t i = 0; o != s && o->pcs != NULL && i < o->n; i++) {
            cg_frame_t f;
            bool ret = i > 0 || !o->exact0;
            cg_frame_named(o->pcs[i], ret, &f);
            out->rule = best_rule(want, &f, o->pcs[i], ret, out->rule);
        }
    }
    for (size_t i = 0; s != NULL && i < s->n && (kept < CG_DEDUP_FRAMES || any); i++) {
        cg_frame_t f;
        bool ret = i > 0 || !s->exact0;
        cg_frame_named(s->pcs[i], ret, &f);
        if (any)
            out->rule = best_rule(want, &f, s->pcs[i], ret, out->rule);
        /* the symbol table's names only, mangled: a name the symbolizer
         * alone gives (a stripped static function) would make the hash
         * differ with and without it (docs/reports.md); a frame with no
         * symbol enters by its module offset (stable across runs, not
         * across rebuilds) until the first named frame has entered —
         * after it such frames are skipped, so that libc's start-up below
         * main, which its symbol tables do not name, does not make a bug's
         * hash follow libc updates — and one outside a file's mapping (no
         * module, or "<anonymous>", "[heap]": no stable offset) not at all.
         * Before the first named frame too, a frame with no symbol enters
         * only from the module of the first frame kept: a stripped
         * program's main is followed by libc's unnamed start-up code,
         * which would otherwise be its hash's third frame. */
        if (kept == CG_DEDUP_FRAMES || own_frame(&f) ||
            (f.symbol[0] == 0 && (f.module[0] != '/' || named ||
                                  (kept > 0 && strcmp(f.module, first_mod) != 0))))
            continue;
        if (kept == 0) {
            size_t ml = strlen(f.module);
            if (ml >= sizeof first_mod)
                ml = sizeof first_mod - 1;
            memcpy(first_mod, f.module, ml);
            first_mod[ml] = 0;
        }
        named = named || f.symbol[0] != 0;
        char mod[256];                  /* a file name: NAME_MAX bytes */
        hash_module(f.module, mod, sizeof mod);
        h = fnv(fnv(fnv(h, "\n"), mod), ":");
        if (f.symbol[0]) {
            h = fnv(h, f.symbol);
            tn += cg_fmt(out->top + tn, sizeof out->top - tn, "%s%s", kept ? " < " : "",
                         f.function);
        } else {
            /* by the function's size and the frame's place in it (call
             * frame information: a stripped program keeps it), which a
             * rebuild that moves the function leaves as they are; by the
             * module offset when the module has no such table */
            char off[48];
            size_t in_fn, fn_size;
            if (cg_sym_code_range(f.pc, &in_fn, &fn_size))
                cg_fmt(off, sizeof off, "?%x+%x", fn_size, in_fn);
            else
                cg_fmt(off, sizeof off, "+%p", (void *)f.offset);
            h = fnv(h, off);
            cg_fmt(off, sizeof off, "+%p", (void *)f.offset);
            tn += cg_fmt(out->top + tn, sizeof out->top - tn, "%s(%s%s)", kept ? " < " : "",
                         mod, off);
        }
        kept++;
    }
    if (kept == 0)
        cg_fmt(out->top, sizeof out->top, "(no named frame)");
    out->hash = h;
    for (int i = 0; i < 16; i++)
        out->hex[i] = hex[(h >> (60 - 4 * i)) & 15];
    out->hex[16] = 0;
}
