/*
 * fmt.h — a tiny formatter for reports and warnings (fmt.c): no malloc, no
 * locale, no stdio, so it is safe inside malloc, under our locks and in
 * signal handlers.
 */
#ifndef CG_FMT_H
#define CG_FMT_H

#include "platform.h"

/* The longest name a report line shows (bytes): a function, file, module
 * or thread name, a path, given to cg_fmt as %N, that is longer keeps its
 * first CG_FMT_NAME_MAX - 3 bytes and ends in "..." (deep C++ templates
 * give names of kilobytes; a report line stays readable and bounded). */
#define CG_FMT_NAME_MAX 480
/* The longest path a report line shows (bytes), given to cg_fmt as %P: a
 * module or source file, the program.  A path is shown whole (what
 * /proc/self/maps shows of any path the kernel takes, " (deleted)"
 * included); only a longer string, which is not a path, keeps its first
 * CG_FMT_PATH_MAX - 3 bytes and ends in "...". */
#define CG_FMT_PATH_MAX (CG_PATH_MAX + 15)

/* Format into buf (size cap, always NUL-terminated): %s %N %P %p %x %zu
 * %d %c (%N: a string cut to CG_FMT_NAME_MAX, %P: a path cut to
 * CG_FMT_PATH_MAX, above; %x and %zu take size_t; %d takes int).  Returns
 * the length written (what fit). */
size_t cg_fmt(char *buf, size_t cap, const char *fmt, ...) CG_HIDDEN;

#endif /* CG_FMT_H */
