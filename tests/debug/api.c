/*
 * api.c — chunkguard's own API under LD_PRELOAD (found with dlsym, so the
 * program also runs, and says so, without chunkguard):
 *   api callback   a report callback counts a double free and an overflow
 *                  (debug mode) and the program goes on
 *   api describe   cg_describe of an interior address, a freed block and a
 *                  stack address
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunkguard.h"

static int reports;
static char kinds[256];

static void on_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    reports++;
    /* no malloc in here: chunkguard may hold its locks */
    strncat(kinds, r->kind, sizeof kinds - strlen(kinds) - 2);
    strncat(kinds, r->recoverable ? "+ " : "- ", sizeof kinds - strlen(kinds) - 1);
    if (strstr(r->json, "\"kind\":") == NULL || strstr(r->text, "ERROR: chunkguard:") == NULL)
        strncat(kinds, "BAD ", sizeof kinds - strlen(kinds) - 1);
}

int main(int argc, char **argv)
{
    void (*set_cb)(cg_report_callback_t, void *) =
        (void (*)(cg_report_callback_t, void *))dlsym(RTLD_DEFAULT, "cg_set_report_callback");
    size_t (*describe)(const void *, char *, size_t) =
        (size_t (*)(const void *, char *, size_t))dlsym(RTLD_DEFAULT, "cg_describe");
    if (set_cb == NULL || describe == NULL) {
        puts("no chunkguard");
        return 2;
    }
    const char *mode = argc > 1 ? argv[1] : "callback";
    if (strcmp(mode, "callback") == 0) {
        set_cb(on_report, NULL);
        char *volatile p = malloc(40);
        free(p);
        free(p);                       /* reported, then ignored */
        char *volatile q = malloc(40);
        memset(q + 40, 'X', 3);        /* reported at free */
        free(q);
        printf("reports=%d kinds=%s\n", reports, kinds);
        return 0;
    }
    char buf[4096];
    char *volatile p = malloc(40), *volatile f = malloc(100);
    free(f);
    int local;
    describe(p + 8, buf, sizeof buf);
    fputs(buf, stdout);
    describe(f, buf, sizeof buf);
    fputs(buf, stdout);
    describe(&local, buf, sizeof buf);
    fputs(buf, stdout);
    return 0;
}
