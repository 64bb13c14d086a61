/*
 * fmt.h — a tiny formatter for reports and warnings (fmt.c): no malloc, no
 * locale, no stdio, so it is safe inside malloc, under our locks and in
 * signal handlers.
 */
#ifndef CG_FMT_H
#define CG_FMT_H

#include "platform.h"

/* Format into buf (size cap, always NUL-terminated): %s %p %x %zu %d %c
 * (%x and %zu take size_t; %d takes int).  Returns the length written. */
size_t cg_fmt(char *buf, size_t cap, const char *fmt, ...) CG_HIDDEN;

#endif /* CG_FMT_H */
