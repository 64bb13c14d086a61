/*
 * pattern_test.c — cg_pattern_find_not (src/pattern.c, linked in directly)
 * against a byte-by-byte reference: every length 0..400 at 16 alignments,
 * no bad byte and one bad byte at every offset, for both vector widths the
 * CPU offers (SSE2 before cg_pattern_init, then AVX2 if it has it), plus
 * two bad bytes (the first must be found).  Prints "ok N" or the first
 * mismatch; exit 0 only when everything matched.
 */
#include <stdio.h>
#include <string.h>

#include "pattern.h"

static const unsigned char *reference(const unsigned char *p, size_t len, unsigned char b)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != b)
            return p + i;
    return NULL;
}

static unsigned char buf[1024 + 64];
static long checks;

static int check(const unsigned char *p, size_t len, unsigned char b, const char *what)
{
    const unsigned char *want = reference(p, len, b), *got = cg_pattern_find_not(p, len, b);
    checks++;
    if (got == want)
        return 0;
    printf("mismatch (%s): len %zu, align %zu: got %td, want %td\n", what, len,
           (size_t)((uintptr_t)p & 15), got ? got - p : -1, want ? want - p : -1);
    return 1;
}

static int sweep(const char *what)
{
    const unsigned char b = 0xfd;
    for (size_t align = 0; align < 16; align++)
        for (size_t len = 0; len <= 400; len++) {
            unsigned char *p = buf + align;
            memset(buf, b, sizeof buf);
            buf[align + len] = 0;              /* the byte after: never looked at */
            if (align)
                buf[align - 1] = 0;            /* nor the byte before */
            if (check(p, len, b, what))
                return 1;
            for (size_t k = 0; k < len; k++) {
                p[k] = 0xfa;
                if (check(p, len, b, what))
                    return 1;
                if (k + 1 < len) {
                    p[len - 1] = 0;            /* a later bad byte too */
                    if (check(p, len, b, what))
                        return 1;
                    p[len - 1] = b;
                }
                p[k] = b;
            }
        }
    return 0;
}

int main(void)
{
    if (sweep("sse2"))
        return 1;
    cg_pattern_init();
    if (sweep("selected"))
        return 1;
    printf("ok %ld\n", checks);
    return 0;
}
