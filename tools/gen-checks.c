/*
 * gen-checks.c — what the tests and the docs need from the catalogue of
 * checks (src/report/checks.def), printed from the same list the reporters
 * are built from, so neither keeps a copy by hand.
 *
 *   gen-checks table        the expectation table, one check a line, fields
 *                           separated by tabs:
 *                             check  ID  token  switch  glibc  sentence
 *                             verify ID  token  -       (empty) name
 *                           switch is CG_CHECK_<NAME> or none; glibc is
 *                           empty where glibc has no message
 *                           (`make $(BUILD)/checks.tsv`; tests/cases/lib.sh)
 *   gen-checks doc < F      F (docs/reports.md) with the lines between
 *                           "<!-- begin checks.def: checks -->" (or
 *                           ": verify") and "<!-- end checks.def -->"
 *                           replaced by the table of those entries
 *                           (`make docs/reports.md`; tests/suites/12-checks.sh
 *                           fails when the committed file differs)
 * Exit status 0; 2 on bad usage or a marker left open.
 */
#include <stdio.h>
#include <string.h>

/* The tokens, by errors.def's ids. */
enum {
#define CG_ERROR(id, token) E_##id,
#include "../src/report/errors.def"
#undef CG_ERROR
    E_COUNT
};
static const char *const tokens[E_COUNT] = {
#define CG_ERROR(id, token) [E_##id] = token,
#include "../src/report/errors.def"
#undef CG_ERROR
};

typedef struct entry {
    int verify;               /* a heap-check kind (CG_VERIFY_ENTRY) */
    const char *id;
    int token;                /* E_<id> of errors.def */
    const char *sw, *glibc, *text, *what;
} entry_t;

/* "NONE" is a check without a switch. */
static const entry_t entries[] = {
#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence) \
    { 0, #id, E_##token, #sw, glibc, sentence, NULL },
#define CG_VERIFY_ENTRY(id, token, name, what) \
    { 1, #id, E_##token, NULL, NULL, name, what },
#include "../src/report/checks.def"
};
#define NENTRIES (sizeof entries / sizeof entries[0])

static void print_table(void)
{
    for (size_t i = 0; i < NENTRIES; i++) {
        const entry_t *e = &entries[i];
        if (e->verify)
            printf("verify\t%s\t%s\t-\t\t%s\n", e->id, tokens[e->token], e->text);
        else if (strcmp(e->sw, "NONE") == 0)
            printf("check\t%s\t%s\tnone\t%s\t%s\n", e->id, tokens[e->token],
                   e->glibc ? e->glibc : "",
                   e->text);
        else
            printf("check\t%s\t%s\tCG_CHECK_%s\t%s\t%s\n", e->id, tokens[e->token], e->sw,
                   e->glibc ? e->glibc : "", e->text);
    }
}

/* One generated table, its header included (a comment line inside a
 * markdown table would end it): the checks or the verifier's kinds. */
static void print_rows(int verify)
{
    if (verify)
        puts("| kind | token | what is inconsistent |\n|---|---|---|");
    else
        puts("| check | token | switch | glibc | second line |\n|---|---|---|---|---|");
    for (size_t i = 0; i < NENTRIES; i++) {
        const entry_t *e = &entries[i];
        if (e->verify != verify)
            continue;
        if (verify) {
            printf("| %s | %s | %s |\n", e->text, tokens[e->token], e->what);
        } else {
            char sw[64], glibc[160];
            if (strcmp(e->sw, "NONE") == 0)
                snprintf(sw, sizeof sw, "none");
            else
                snprintf(sw, sizeof sw, "`CG_CHECK_%s`", e->sw);
            if (e->glibc)
                snprintf(glibc, sizeof glibc, "\"%s\"", e->glibc);
            else
                snprintf(glibc, sizeof glibc, "none");
            printf("| `%s` | `%s` | %s | %s | %s |\n", e->id, tokens[e->token], sw, glibc,
                   e->text);
        }
    }
}

static int rewrite_doc(void)
{
    static const char begin[] = "<!-- begin checks.def: ", end[] = "<!-- end checks.def -->";
    char line[4096];
    int skipping = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (skipping) {
            if (strncmp(line, end, sizeof end - 1) != 0)
                continue;
            skipping = 0;
        }
        fputs(line, stdout);
        if (strncmp(line, begin, sizeof begin - 1) == 0) {
            const char *which = line + sizeof begin - 1;
            if (strncmp(which, "checks -->", 10) == 0)
                print_rows(0);
            else if (strncmp(which, "verify -->", 10) == 0)
                print_rows(1);
            else {
                fprintf(stderr, "gen-checks: unknown table in: %s", line);
                return 2;
            }
            skipping = 1;
        }
    }
    if (skipping) {
        fprintf(stderr, "gen-checks: no \"%s\" after a begin marker\n", end);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "table") == 0) {
        print_table();
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "doc") == 0)
        return rewrite_doc();
    fprintf(stderr, "usage: gen-checks table | gen-checks doc < docs/reports.md\n");
    return 2;
}
