/*
 * fmt.c — a tiny formatter for reports: no malloc, no locale, no stdio, so
 * it is safe inside malloc, under our locks, and in signal handlers.
 */
#include <stdarg.h>

#include "fmt.h"

typedef struct out {
    char *buf;
    size_t cap, len;   /* len counts what fit */
} out_t;

static void put(out_t *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len++] = c;
}

static void puts_(out_t *o, const char *s)
{
    if (s == NULL)
        s = "(null)";
    while (*s)
        put(o, *s++);
}

/* s, cut to max bytes: a longer one keeps its first max - 3 bytes and
 * ends in "..." */
static void putname(out_t *o, const char *s, size_t max)
{
    if (s == NULL)
        s = "(null)";
    size_t n = 0;
    while (n <= max && s[n] != 0)
        n++;
    if (n <= max) {
        puts_(o, s);
        return;
    }
    for (size_t i = 0; i < max - 3; i++)
        put(o, s[i]);
    puts_(o, "...");
}

static void putnum(out_t *o, unsigned long long v, unsigned base, int min_digits)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n < min_digits)
        tmp[n++] = '0';
    while (n)
        put(o, tmp[--n]);
}

size_t cg_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    out_t o = {buf, cap, 0};
    va_list ap;
    va_start(ap, fmt);
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            put(&o, *f);
            continue;
        }
        f++;
        if (*f == 'z')          /* %zu, %zx */
            f++;
        switch (*f) {
        case 's': puts_(&o, va_arg(ap, const char *)); break;
        case 'N': putname(&o, va_arg(ap, const char *), CG_FMT_NAME_MAX); break;
        case 'P': putname(&o, va_arg(ap, const char *), CG_FMT_PATH_MAX); break;
        case 'c': put(&o, (char)va_arg(ap, int)); break;
        case 'p':
            puts_(&o, "0x");
            putnum(&o, (uintptr_t)va_arg(ap, void *), 16, 1);
            break;
        case 'x': putnum(&o, va_arg(ap, size_t), 16, 1); break;
        case 'u': putnum(&o, va_arg(ap, size_t), 10, 1); break;
        case 'd': {
            int v = va_arg(ap, int);
            if (v < 0) {
                put(&o, '-');
                putnum(&o, (unsigned long long)(-(long long)v), 10, 1);
            } else {
                putnum(&o, (unsigned long long)v, 10, 1);
            }
            break;
        }
        case '%': put(&o, '%'); break;
        default: put(&o, '?'); break;
        }
    }
    va_end(ap);
    if (cap)
        buf[o.len] = 0;
    return o.len;
}
