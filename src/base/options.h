/*
 * options.h — runtime options (generated from options.def) and glibc's
 * malloc tunables (tunables.c).
 */
#ifndef CG_OPTIONS_H
#define CG_OPTIONS_H

#include "platform.h"

/* The bytes a path option holds, its NUL included: PATH_MAX, so any path
 * the kernel takes fits (a deep `chunkguard run --report-dir`).  Static
 * storage (cg_opt is a plain global, not TLS: 5 path options, 20 KiB of
 * .bss).  A longer value is a bad value: a warning, the default kept. */
#define CG_OPT_PATH_MAX 4096
/* A path option after cg_expand_path: room for the pids "%p" adds. */
#define CG_OPT_PATH_BUF (CG_OPT_PATH_MAX + 32)
#define CG_OPT_PATH 1

typedef struct cg_options {
/* The scalars first, then the path options' arrays: start-up writes only
 * the scalars (the arrays' default is "", as .bss already holds), so a
 * process with no path option set touches one page of cg_opt, not one per
 * path (perf11, docs/performance.md). */
#define CG_OPT_SCALAR_bool(name) bool name;
#define CG_OPT_SCALAR_int(name)  int name;
#define CG_OPT_SCALAR_mode(name) int name;
#define CG_OPT_SCALAR_path(name)
#define CG_OPTION(name, type, def, min, max, flags, help) CG_OPT_SCALAR_##type(name)
#include "options.def"
#undef CG_OPTION
#define CG_OPT_ARRAY_bool(name)
#define CG_OPT_ARRAY_int(name)
#define CG_OPT_ARRAY_mode(name)
#define CG_OPT_ARRAY_path(name) char name[CG_OPT_PATH_MAX];
#define CG_OPTION(name, type, def, min, max, flags, help) CG_OPT_ARRAY_##type(name)
#include "options.def"
#undef CG_OPTION
} cg_options_t;

/* One id per option, in list order: bit (1 << CG_OPT_ID_name) of
 * cg_opt_given says the option was set in CHUNKGUARD_OPTIONS. */
enum {
#define CG_OPTION(name, type, def, min, max, flags, help) CG_OPT_ID_##name,
#include "options.def"
#undef CG_OPTION
    CG_OPT_COUNT
};

extern cg_options_t cg_opt CG_HIDDEN;
extern uint32_t cg_opt_given CG_HIDDEN;

/* The mode option's values. */
enum { CG_OPT_MODE_FAST = 0, CG_OPT_MODE_DEBUG = 1, CG_OPT_MODE_GUARD = 2 };
CG_INLINE const char *cg_opt_mode_name(int mode)
{
    return mode == CG_OPT_MODE_GUARD ? "guard" : mode == CG_OPT_MODE_DEBUG ? "debug" : "fast";
}

#define CG_OPT_GIVEN(name) ((cg_opt_given >> CG_OPT_ID_##name) & 1u)

/*
 * cg_options_init - set every option to its default, then parse the
 * program's cg_default_options() string (if it links one), then
 * CHUNKGUARD_OPTIONS ("key=value" pairs separated by ':').  An unknown key,
 * a pair without '=', or a value that does not parse or is out of range
 * gives one warning line naming it (on the log, see cg_log_fd) and keeps
 * the default.  Path options are ignored, with a warning, in a set-uid or
 * otherwise AT_SECURE process.  Runs once, at initialisation, before any
 * other thread can exist; never allocates.
 */
void cg_options_init(void) CG_HIDDEN;

/* The program's built-in options (declared and documented in chunkguard.h);
 * a weak default here returns NULL. */
const char *cg_default_options(void);

/*
 * cg_tunables_init - apply glibc's malloc settings from the environment,
 * before CHUNKGUARD_OPTIONS: GLIBC_TUNABLES entries glibc.malloc.
 * {tcache_count, tcache_max, mmap_threshold, trim_threshold, arena_max,
 * perturb, mxfast, check} and the variables MALLOC_PERTURB_,
 * MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_,
 * MALLOC_TOP_PAD_, MALLOC_MMAP_MAX_ and MALLOC_CHECK_, with glibc 2.36's
 * meanings and limits (a value out of
 * glibc's range is ignored, as glibc ignores it).  Other tunables are left
 * to glibc.  Nothing is read in an AT_SECURE process (glibc ignores these
 * there too).  Runs once, at initialisation; never allocates.
 */
void cg_tunables_init(void) CG_HIDDEN;

/* glibc.malloc.check (MALLOC_CHECK_), 0 to 3, as cg_tunables_init found
 * it: non-zero asks for glibc's checking allocator (libc_malloc_debug.so),
 * which chunkguard's debug mode stands in for (entry/init.c). */
extern int cg_tunable_check CG_HIDDEN;

/*
 * cg_expand_path - copy path option `in` to out (capacity cap bytes,
 * NUL-terminated, truncated if needed), with each "%p" replaced by the pid.
 * Async-signal-safe.
 */
void cg_expand_path(char *out, size_t cap, const char *in) CG_HIDDEN;

#endif /* CG_OPTIONS_H */
