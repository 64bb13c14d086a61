/*
 * gen-man-options.c — copy a man page template (stdin) to stdout, replacing
 * the line ".\" @OPTIONS@" with one .TP entry per option of
 * src/base/options.def (name, type, default, range, help), in roff.
 *
 * chunkguard(1)'s option list is thereby made from the same X-macro list
 * as the parser, the defaults, help=1 and docs/options.md: a new or
 * changed option reaches the man page at the next build
 * (pkg/install.mk; tests/suites/72-install.sh checks the rendered page
 * names every option).
 */
#include <stdio.h>
#include <string.h>

#define CG_OPT_PATH 1

/* Text into roff: a backslash becomes \e, and \& before the text keeps a
 * leading '.' or '\'' from being read as a request.  The help strings are
 * single lines (options.def concatenates them), so no newline needs care. */
static void roff_text(const char *s)
{
    fputs("\\&", stdout);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", stdout);
        else if (*s == '-')
            fputs("\\-", stdout);   /* an ASCII hyphen, copy-pasteable */
        else
            putchar(*s);
    }
}

static void entry(const char *name, const char *type, const char *def, long min, long max,
                  int flags, const char *help)
{
    printf(".TP\n.B ");
    roff_text(name);
    printf("\n");
    if (strcmp(type, "int") == 0)
        printf("an integer, %ld to %ld", min, max);
    else if (strcmp(type, "bool") == 0)
        printf("0 or 1");
    else if (strcmp(type, "mode") == 0)
        printf("fast, debug or guard");
    else
        printf("a file name");
    printf("; default ");
    /* def is the stringised C initialiser: "fast" keeps its quotes, "" is
     * an empty path. */
    if (strcmp(def, "\"\"") == 0)
        printf("none");
    else {
        char buf[64];
        size_t n = strlen(def);
        if (n >= 2 && def[0] == '"' && def[n - 1] == '"' && n - 2 < sizeof buf) {
            memcpy(buf, def + 1, n - 2);
            buf[n - 2] = '\0';
            def = buf;
        }
        printf("\\fB");
        roff_text(def);
        printf("\\fR");
    }
    printf(".\n.br\n");
    roff_text(help);
    printf(".%s\n", (flags & CG_OPT_PATH) ? " Ignored in set-uid (AT_SECURE) processes." : "");
}

int main(void)
{
    char line[4096];
    int done = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (strcmp(line, ".\\\" @OPTIONS@\n") != 0) {
            fputs(line, stdout);
            continue;
        }
        printf(".\\\" Generated from src/base/options.def by tools/gen-man-options.c.\n");
#define CG_OPTION(name, type, def, min, max, flags, help) \
    entry(#name, #type, #def, (long)(min), (long)(max), (flags), help);
#include "../src/base/options.def"
#undef CG_OPTION
        done = 1;
    }
    if (!done) {
        fprintf(stderr, "gen-man-options: no line '.\\\" @OPTIONS@' in the template\n");
        return 1;
    }
    return 0;
}
