/*
 * faults.c — one bad access per case (argv[1]), for tests/suites/58-guard.sh.
 * Each access is made by a named, non-inlined function, so the report's
 * access stack can be checked to name it.  Sizes and offsets come from
 * argv so the compiler cannot see the bug.
 */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
#include <stdint.h>

#define NOINLINE __attribute__((noinline))

static size_t arg(char **argv, int i, size_t def)
{
    return argv[i] ? strtoul(argv[i], NULL, 0) : def;
}

NOINLINE static char *alloc_here(size_t n) { return malloc(n); }
NOINLINE static void free_here(void *p) { free(p); }
NOINLINE static int read_here(volatile char *p, long off) { return p[off]; }
NOINLINE static void write_here(volatile char *p, long off) { p[off] = 'x'; }
NOINLINE static void copy_here(char *dst, const char *src, size_t n) { memcpy(dst, src, n); }
NOINLINE static void set_here(char *dst, size_t n) { memset(dst, 0, n); }

/* chunkguard's cg_describe, from the preloaded library */
static size_t describe(const void *a, char *buf, size_t cap)
{
    static size_t (*fn)(const void *, char *, size_t);
    if (fn == NULL)
        fn = (size_t (*)(const void *, char *, size_t))dlsym(RTLD_DEFAULT, "cg_describe");
    if (fn == NULL) {
        fprintf(stderr, "no cg_describe: not under chunkguard\n");
        exit(4);
    }
    return fn(a, buf, cap);
}

static volatile char *victim;
static void on_usr1(int sig)
{
    (void)sig;
    read_here(victim, 0);
}

static pthread_barrier_t bar;
static void *racer(void *a)
{
    pthread_barrier_wait(&bar);
    read_here(a, 0);
    return NULL;
}

static void *churn(void *a)
{
    free(malloc(100));
    return a;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    /* the program's own handler: it gets the fault as the kernel gave it */
    _exit(si->si_addr == (void *)0x10 ? 42 : 43);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "ok";
    if (!strcmp(c, "ok")) {
        for (int i = 0; i < 20000; i++) {
            char *p = alloc_here((size_t)i % 3000 + 1);
            p[i % 3000] = 1;
            p = realloc(p, (size_t)i % 5000 + 1);
            free_here(p);
        }
        char *m = aligned_alloc(4096, 8192);
        memset(m, 1, 8192);
        free(m);
        void *z = calloc(1000, 10);
        for (int i = 0; i < 10000; i++)
            if (((char *)z)[i] != 0)
                return 1;
        free(z);
        puts("ok");
        return 0;
    }
    if (!strcmp(c, "read-after-free")) {          /* SIZE */
        char *p = alloc_here(arg(argv, 2, 40));
        free_here(p);
        return read_here(p, (long)arg(argv, 3, 8));
    }
    if (!strcmp(c, "write-after-free-then-churn")) {
        char *p = alloc_here(40);
        free_here(p);
        write_here(p, 5);
        for (int i = 0; i < 250000; i++)
            free(malloc(24));
        return 0;
    }
    if (!strcmp(c, "read-past") || !strcmp(c, "write-past")) {   /* SIZE OFF */
        size_t n = arg(argv, 2, 41);
        char *p = alloc_here(n);
        long off = (long)(n + arg(argv, 3, 0));
        if (c[0] == 'r')
            return read_here(p, off);
        write_here(p, off);
        return 0;
    }
    if (!strcmp(c, "read-past-via")) {             /* ENTRY SIZE: 1 byte past */
        const char *e = argc > 2 ? argv[2] : "malloc";
        size_t n = arg(argv, 3, 131073);
        char *p = NULL;
        if (!strcmp(e, "malloc"))
            p = malloc(n);
        else if (!strcmp(e, "calloc"))
            p = calloc(1, n);
        else if (!strcmp(e, "memalign"))
            p = memalign(64, n);
        else if (!strcmp(e, "posix_memalign") && posix_memalign((void **)&p, 64, n) != 0)
            p = NULL;
        else if (!strcmp(e, "aligned_alloc"))
            p = aligned_alloc(64, n);
        else if (!strcmp(e, "realloc-null"))
            p = realloc(NULL, n);
        else if (!strcmp(e, "realloc-small")) {        /* a small block grown big */
            p = malloc(16);
            memset(p, 7, 16);
            p = realloc(p, n);
            if (p != NULL && p[15] != 7)
                return 3;
        } else if (!strcmp(e, "realloc-big-to-big")) { /* below guard_big, to above */
            p = malloc(65536);
            p = realloc(p, n);
        } else if (!strcmp(e, "new")) {                /* C++ operator new, preloaded */
            void *(*nw)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "_Znwm");
            p = nw != NULL ? nw(n) : NULL;
        }
        if (p == NULL)
            return 2;
        return read_here(p, (long)n);
    }
    if (!strcmp(c, "write-past-before-next")) {    /* SIZE: a block after it too */
        size_t n = arg(argv, 2, 4096);
        char *p = alloc_here(n), *q = alloc_here(n);
        write_here(p, (long)n);
        free_here(q);
        return 0;
    }
    if (!strcmp(c, "underflow")) {                 /* BYTES */
        char *p = alloc_here(40);
        write_here(p, -(long)arg(argv, 2, 1));
        free_here(p);
        return 0;
    }
    if (!strcmp(c, "underflow-two")) {             /* BYTES: p[-BYTES], then p[-1] */
        char *p = alloc_here(40);
        write_here(p, -(long)arg(argv, 2, 1));
        write_here(p, -1);
        free_here(p);
        return 0;
    }
    if (!strcmp(c, "underflow-span")) {            /* BYTES: all of them, p[-BYTES..-1] */
        char *p = alloc_here(40);
        size_t n = (size_t)arg(argv, 2, 8);
        set_here(p - n, n);
        free_here(p);
        return 0;
    }
    if (!strcmp(c, "write-freed-big")) {
        char *p = alloc_here(4 << 20);
        memset(p, 1, 4 << 20);
        free_here(p);
        write_here(p, 3 << 20);
        return 0;
    }
    if (!strcmp(c, "memcpy-past")) {
        char src[64] = "0123456789";
        char *p = alloc_here(40);
        copy_here(p, src, 64);
        free_here(p);
        return 0;
    }
    if (!strcmp(c, "memset-freed")) {
        char *p = alloc_here(100);
        free_here(p);
        set_here(p, 100);
        return 0;
    }
    if (!strcmp(c, "smashed-stack")) {
        char *p = alloc_here(40);
        free_here(p);
#if defined(__x86_64__)
        /* the access with the stack pointer pointing at nothing */
        __asm__ volatile("mov %%rsp, %%rbx\n\tmov $0x1000, %%rsp\n\tmovb (%0), %%al\n\t"
                         "mov %%rbx, %%rsp" : : "r"(p) : "rbx", "rax", "memory");
#endif
        return 0;
    }
    if (!strcmp(c, "misaligned-stack")) {
        char *p = alloc_here(40);
        free_here(p);
#if defined(__x86_64__)
        __asm__ volatile("sub $8, %%rsp\n\tmovb (%0), %%al\n\tadd $8, %%rsp"
                         : : "r"(p) : "rax", "memory");
#endif
        return 0;
    }
    if (!strcmp(c, "in-signal-handler")) {
        victim = alloc_here(40);
        free_here((void *)victim);
        signal(SIGUSR1, on_usr1);
        raise(SIGUSR1);
        return 0;
    }
    if (!strcmp(c, "threads")) {                  /* N threads fault at once */
        int n = (int)arg(argv, 2, 4);
        pthread_t t[16];
        pthread_barrier_init(&bar, NULL, (unsigned)n);
        char *p = alloc_here(40);
        free_here(p);
        for (int i = 0; i < n; i++)
            pthread_create(&t[i], NULL, racer, p);
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
        return 0;
    }
    if (!strcmp(c, "thread-churn")) {            /* mappings after N threads */
        for (int i = 0; i < (int)arg(argv, 2, 2000); i++) {
            pthread_t t;
            pthread_create(&t, NULL, churn, NULL);
            pthread_join(t, NULL);
        }
        FILE *m = fopen("/proc/self/maps", "r");
        int n = 0;
        char line[512];
        while (m && fgets(line, sizeof line, m))
            n++;
        printf("%d\n", n);
        return 0;
    }
    if (!strcmp(c, "df-late")) {                 /* N frees of 3-page blocks after it, then OP again */
        char *p = alloc_here(40);
        free_here(p);
        for (size_t i = 0; i < arg(argv, 2, 0); i++)
            free(malloc(5000));               /* never p's 2-page range */
        const char *op = argv[2] && argv[3] ? argv[3] : "free";
        if (!strcmp(op, "realloc"))
            return realloc(p, 80) != NULL;
        if (!strcmp(op, "usable"))
            return (int)malloc_usable_size(p);
        free_here(p);                         /* the double free */
        return 0;
    }
    if (!strcmp(c, "read-after-churn")) {        /* N frees after it, then a read */
        char *p = alloc_here(40);
        free_here(p);
        for (size_t i = 0; i < arg(argv, 2, 10000); i++)
            free(malloc(40));
        return read_here(p, 0) == 0x7f;
    }
    if (!strcmp(c, "sample-rate")) {             /* of N malloc/free pairs, how many sampled */
        size_t n = arg(argv, 2, 200000), sampled = 0;
        char what[512];
        for (size_t i = 0; i < n; i++) {
            char *p = malloc(64);
            /* a sampled 64-byte block ends where its page does: ask only
             * about those (describe symbolizes, which costs) */
            if (((uintptr_t)p & 4095) == 4096 - 64) {
                describe(p, what, sizeof what);
                sampled += strstr(what, "in a guard slot") != NULL;
            }
            free(p);
        }
        printf("%zu\n", sampled);
        return 0;
    }
    if (!strcmp(c, "sampled-uaf")) {             /* a sampled block read after free */
        char what[512];
        for (int i = 0; i < 1000000; i++) {
            char *p = alloc_here(64);
            if (((uintptr_t)p & 4095) == 4096 - 64 && describe(p, what, sizeof what) &&
                strstr(what, "in a guard slot") != NULL) {
                free_here(p);
                return read_here(p, 8);
            }
            free(p);
        }
        fprintf(stderr, "no sampled block\n");
        return 3;
    }
    if (!strcmp(c, "leak")) {                    /* a block nothing points to */
        char *p = alloc_here(100);
        p[0] = 1;
        p = NULL;
        char *q = alloc_here(200);               /* reachable: a global holds it */
        victim = q;
        return 0;
    }
    if (!strcmp(c, "sampled-aligned-uaf")) {      /* aligned_alloc(64, 64), sampled */
        char what[512];
        for (int i = 0; i < 1000000; i++) {
            char *p = aligned_alloc(64, 64);
            if (((uintptr_t)p & 4095) == 4096 - 64 && describe(p, what, sizeof what) &&
                strstr(what, "in a guard slot") != NULL) {
                free_here(p);
                return read_here(p, 8);
            }
            free(p);
        }
        fprintf(stderr, "no sampled block\n");
        return 3;
    }
    if (!strcmp(c, "huge")) {                    /* an impossible request, then a bug */
        void *h = malloc((size_t)-1);
        char *p = alloc_here(16);
        if (h != NULL)
            return 5;
        write_here(p, 16 + 64);                  /* still guarded: faults */
        return 0;
    }
    if (!strcmp(c, "many-live")) {               /* N live blocks, then 1 past the last */
        size_t n = arg(argv, 2, 20000);
        char **v = calloc(n, sizeof *v);
        for (size_t i = 0; i < n; i++)
            v[i] = alloc_here(40);
        write_here(v[n - 1], 40);
        free_here(v[n - 1]);
        return 0;
    }
    if (!strcmp(c, "describe")) {                /* cg_describe around a guarded block */
        /* the block and its neighbours: in guard mode every block is
         * guarded; in another mode the first sampled one (guard_sample) */
        char what[1024], *p = NULL;
        for (int i = 0; i < 1000000 && p == NULL; i++) {
            char *q = alloc_here(100);
            if (describe(q, what, sizeof what) && (strstr(what, "in a guard slot") != NULL ||
                                                   strstr(what, "guard pages of its own") != NULL))
                p = q;
        }
        if (p == NULL) {
            fprintf(stderr, "no guarded block\n");
            return 3;
        }
        char *page_end = (char *)(((uintptr_t)p + 100 + 4095) & ~(uintptr_t)4095);
        const char *names[] = { "inside", "slack-after", "guard-page", "guard-page-end",
                                "slack-before", "page-start", "far-page", "freed-inside",
                                "freed-page" };
        char *addrs[] = { p + 10, p + 100, page_end, page_end + 4095, p - 8,
                          (char *)((uintptr_t)p & ~(uintptr_t)4095), page_end + 3 * 4096 + 16,
                          p + 10, page_end };
        for (int i = 0; i < 9; i++) {
            if (i == 7)
                free_here(p);
            describe(addrs[i], what, sizeof what);
            char *nl = strchr(what, '\n');
            if (nl != NULL)
                *nl = 0;
            printf("%s: %s\n", names[i], what);
        }
        return 0;
    }
    if (!strcmp(c, "own-handler")) {
        free(alloc_here(8));                     /* chunkguard is in charge */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sa, NULL);
        return read_here((char *)0x10, 0);
    }
    if (!strcmp(c, "null")) {
        free(alloc_here(8));
        return read_here((char *)0x10, 0);
    }
    fprintf(stderr, "unknown case %s\n", c);
    return 2;
}
