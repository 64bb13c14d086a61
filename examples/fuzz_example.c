/*
 * fuzz_example.c — fuzzing your own program with chunkguard linked in
 * (docs/fuzzing.md, "Your own program").
 *
 * parse_record() copies the fields of a "name=value;name=value" record into
 * heap strings.  It has a bug: a value of exactly 15 bytes gets a 15-byte
 * buffer, and the NUL terminator is written one past it.  Glibc's malloc
 * never notices (the byte lands in padding); chunkguard's debug mode puts a
 * redzone there and reports heap-buffer-overflow when the string is freed,
 * which ends the process: libFuzzer or AFL++ records the crash.
 *
 *   clang -g -O1 -fsanitize=fuzzer examples/fuzz_example.c build/libchunkguard.a \
 *         -pthread -o build/fuzz/example
 *   build/fuzz/example -max_total_time=60 -rss_limit_mb=0
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Debug mode from the first allocation on, with short stacks: chunkguard
 * reads this when it starts (include/chunkguard.h). */
const char *cg_default_options(void);
const char *cg_default_options(void)
{
    return "mode=debug:stack_depth=8";
}

/* Copy s[0..n) into a new string; the bug: 15-byte values get no room
 * for their NUL. */
static char *copy_field(const char *s, size_t n)
{
    char *out = malloc(n == 15 ? n : n + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, s, n);
    out[n] = 0;
    return out;
}

static size_t parse_record(const char *in, size_t len)
{
    size_t fields = 0, i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && in[j] != ';')
            j++;
        const char *eq = memchr(in + i, '=', j - i);
        if (eq != NULL) {
            char *name = copy_field(in + i, (size_t)(eq - (in + i)));
            char *value = copy_field(eq + 1, (size_t)(in + j - eq - 1));
            fields += name != NULL && value != NULL;
            free(name);
            free(value);
        }
        i = j + 1;
    }
    return fields;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse_record((const char *)data, size);
    return 0;
}
