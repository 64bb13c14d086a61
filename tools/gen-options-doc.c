/*
 * gen-options-doc.c — print docs/options.md from src/base/options.def, so the
 * documentation is generated from the same list as the parser, the
 * defaults and the help=1 listing.  `make docs/options.md` runs it;
 * `make check` fails when the committed file differs from its output.
 */
#include <stdio.h>
#include <string.h>

#include "../src/base/options.h"   /* CG_OPT_PATH, CG_OPT_PATH_MAX */

static void row(const char *name, const char *type, const char *def, long min, long max,
                int flags, const char *help)
{
    char range[64] = "";
    if (strcmp(type, "int") == 0)
        snprintf(range, sizeof range, "%ld to %ld", min, max);
    else if (strcmp(type, "bool") == 0)
        snprintf(range, sizeof range, "0 or 1");
    else if (strcmp(type, "mode") == 0)
        snprintf(range, sizeof range, "fast, debug or guard");
    else
        snprintf(range, sizeof range, "file name, at most %d bytes", CG_OPT_PATH_MAX - 1);
    printf("| `%s` | %s | `%s` | %s | %s.%s |\n", name, type, def, range, help,
           (flags & CG_OPT_PATH) ? " Ignored in set-uid (AT_SECURE) processes." : "");
}

int main(void)
{
    puts("# Options\n\n"
         "<!-- Generated from src/base/options.def by tools/gen-options-doc.c "
         "(`make docs/options.md`); do not edit. -->\n\n"
         "chunkguard reads `CHUNKGUARD_OPTIONS` once, when it initialises: "
         "`key=value` pairs separated by `:`, `,`, a newline (`\\n`, `\\r`) or "
         "blanks (spaces, tabs), any of them, mixed as you like: the separators "
         "ASan's flag parser takes. E.g.\n\n"
         "    CHUNKGUARD_OPTIONS=log_path=/tmp/cg.%p:verbosity=1 "
         "LD_PRELOAD=build/libchunkguard.so ./prog\n"
         "    CHUNKGUARD_OPTIONS=mode=debug,detect_leaks=1 ./prog\n"
         "    CHUNKGUARD_OPTIONS='mode=debug detect_leaks=1' ./prog\n\n"
         "A value, a path above all, that holds a separator or a blank goes in "
         "single or double quotes, which are not part of it: "
         "`log_path='/tmp/run:1,a b/cg.%p'`. A separator, a blank or the end must "
         "follow the closing quote. So a path written without quotes ends at the "
         "first `:`, `,`, newline or blank.\n\n"
         "Blanks may also stand on either side of the `=`: "
         "`CHUNKGUARD_OPTIONS=' mode = debug , stack_depth=4 '` sets both. A word "
         "without `=` between pairs (`verbosity=1 stray mode=debug`) is warned of "
         "alone; the pairs around it apply.\n\n"
         "An unknown key, a pair without `=`, a quote left open (the rest of the "
         "string is inside it), or a value that does not parse or is "
         "out of range gives one warning line naming it, and the option keeps its "
         "default. A path option holds at most 4095 bytes (PATH_MAX with its NUL; "
         "a longer value is a bad value). "
         "A path option's file that cannot be opened (log_path, report_path, "
         "stats_path) gives one warning a process naming the option, "
         "the path and the errno; a suppressions file that cannot be read, one of its own. `help=1` prints this list with the values in effect.\n\n"
         "| option | type | default | values | meaning |\n"
         "|---|---|---|---|---|");
#define CG_OPTION(name, type, def, min, max, flags, help) \
    row(#name, #type, #def, (long)(min), (long)(max), (flags), help);
#include "../src/base/options.def"
#undef CG_OPTION
    puts("\n## How a report ends the process\n\n"
         "| abort_on_error | exitcode | after a report |\n"
         "|---|---|---|\n"
         "| not set | not set | `abort()`: SIGABRT, as glibc's malloc checks do |\n"
         "| not set | N | `_exit(N)` |\n"
         "| 1 | any | `abort()` |\n"
         "| 0 | not set | `_exit(1)` |\n"
         "| 0 | N | `_exit(N)` |\n\n"
         "Every report in fast mode ends the process: the heap has just been found "
         "in a state the allocator cannot vouch for.\n\n"
         "## glibc's settings\n\n"
         "A program tuned for glibc's malloc keeps its tuning: these are read before "
         "`CHUNKGUARD_OPTIONS`, with glibc 2.36's meanings and limits (a value out of "
         "glibc's range is ignored, as glibc ignores it), and not at all in set-uid "
         "processes.\n\n"
         "| GLIBC_TUNABLES entry | environment alias | same as |\n"
         "|---|---|---|\n"
         "| `glibc.malloc.tcache_count` | | entries per tcache bin, 0 to 65535 (0: no tcache) |\n"
         "| `glibc.malloc.tcache_max` | | largest request the tcache holds, 0 to 1032 bytes |\n"
         "| `glibc.malloc.mmap_threshold` | `MALLOC_MMAP_THRESHOLD_` | `mallopt(M_MMAP_THRESHOLD)` |\n"
         "| `glibc.malloc.trim_threshold` | `MALLOC_TRIM_THRESHOLD_` | `mallopt(M_TRIM_THRESHOLD)` |\n"
         "| `glibc.malloc.top_pad` | `MALLOC_TOP_PAD_` | `mallopt(M_TOP_PAD)` |\n"
         "| `glibc.malloc.mmap_max` | `MALLOC_MMAP_MAX_` | `mallopt(M_MMAP_MAX)` |\n"
         "| `glibc.malloc.arena_max` | `MALLOC_ARENA_MAX` | `mallopt(M_ARENA_MAX)`, at least 1 |\n"
         "| `glibc.malloc.perturb` | `MALLOC_PERTURB_` | `mallopt(M_PERTURB)`, 0 to 255 |\n"
         "| `glibc.malloc.mxfast` | | `mallopt(M_MXFAST)`, 0 to 160 bytes |\n"
         "| `glibc.malloc.check` | `MALLOC_CHECK_` | 1 to 3: glibc's checking allocator "
         "(`libc_malloc_debug.so`), see below; 0: no effect |\n\n"
         "When both a `GLIBC_TUNABLES` entry and its alias are set, the entry wins, "
         "as in glibc. `fill_alloc` and `fill_free` override `perturb`.\n\n"
         "`MALLOC_CHECK_` (or `glibc.malloc.check`) 1, 2 or 3 asks for glibc's checking "
         "allocator, which glibc 2.34 and later provide only with `libc_malloc_debug.so` "
         "preloaded; chunkguard stands in for it with `mode=debug`, unless "
         "`CHUNKGUARD_OPTIONS` gives a `mode`. So, as there:\n\n"
         "- `malloc_usable_size` returns the size requested, exactly (glibc's debug "
         "library does; `tst-malloc-usable` checks it);\n"
         "- an overflow past a block is found when it is freed, realloc'd or at exit "
         "(glibc's check byte after each block; here the `redzone`), and the heap's "
         "structures are checked (glibc's `mcheck`-style checks; here every check of "
         "fast mode, and more);\n"
         "- every error is reported and ends the process with `abort()`, whatever the "
         "value: glibc 2.36 aborts for 1, 2 and 3 alike (its old 'print and go on' of "
         "1 is gone); chunkguard's options `halt_on_error`, `abort_on_error` and "
         "`exitcode` still apply.\n\n"
         "Beyond glibc's check, debug mode's defaults come with it: freed blocks wait "
         "poisoned in a quarantine (`quarantine_mb`, a write after free and a double "
         "free are found exactly), reports carry allocation and free stacks "
         "(`stack_depth`), blocks of 128 KiB or more get guard pages (`guard_big`) and "
         "one small block in 256 a guard slot (`guard_sample`). Leaks are not reported "
         "(`detect_leaks` stays 0), and memory use and speed are debug mode's "
         "(docs/performance.md), not fast mode's.");
    return 0;
}
