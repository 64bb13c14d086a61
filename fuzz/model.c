/*
 * model.c — bytes become malloc-family calls over up to 256 slots, each
 * checked against a model of the API contract:
 *   - contents intact: a pattern in the first and last FZ_WINDOW usable
 *     bytes of every block is checked before each free, realloc and check
 *     op (an allocator that hands one block out twice breaks it);
 *   - alignment: 16 bytes, or the alignment asked for (rounded up to a
 *     power of two), a page for valloc/pvalloc;
 *   - no overlap between the usable bytes of live blocks;
 *   - malloc_usable_size >= the request (== in debug mode);
 *   - calloc zeroed; realloc keeps the first min(old, new) bytes;
 *   - errno: ENOMEM with every failed allocation, EINVAL for a bad
 *     alignment (posix_memalign returns the error and leaves *memptr
 *     alone, and errno too for EINVAL; after ENOMEM errno is ENOMEM, as
 *     in glibc), free keeps errno, a failed realloc leaves the block
 *     intact.
 * FZ_OP_TUNE also asks the process-wide questions (tune.c).
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>

/* C23's sized frees; glibc 2.36's headers do not declare them. */
void free_sized(void *p, size_t n);
void free_aligned_sized(void *p, size_t align, size_t n);

static const char fz_nothrow;       /* stands for std::nothrow */

void (*fz_fail_hook)(const char *msg, size_t len);

void fz_fail(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n > sizeof buf - 2)
        n = sizeof buf - 2;
    buf[n++] = '\n';
    if (fz_fail_hook != NULL)
        fz_fail_hook(buf, (size_t)n);
    (void)!write(2, "fuzz: ", 6);
    (void)!write(2, buf, (size_t)n);
    abort();
}

/* ---- patterns ---------------------------------------------------------- */

static inline unsigned char pat(uint32_t seed, size_t i)
{
    uint32_t x = (seed ^ (uint32_t)i) * 0x9e3779b1u;
    return (unsigned char)(x >> 24 ^ x >> 11);
}

/* The two windows of a span of n bytes: [0, a) and [b, n). */
static void windows(size_t n, size_t *a, size_t *b)
{
    *a = n < FZ_WINDOW ? n : FZ_WINDOW;
    *b = n - *a > FZ_WINDOW ? n - FZ_WINDOW : *a;
}

static void fill(fz_slot_t *s, uint32_t seed)
{
    size_t a, b;
    windows(s->span, &a, &b);
    s->seed = seed;
    for (size_t i = 0; i < a; i++)
        s->p[i] = pat(seed, i);
    for (size_t i = b; i < s->span; i++)
        s->p[i] = pat(seed, i);
}

/* First index < limit in s's windows whose byte is not the pattern of
 * s->seed, or SIZE_MAX.  q: where the bytes are now (s->p, or a block
 * realloc moved them to). */
static size_t first_bad(const fz_slot_t *s, const unsigned char *q, size_t limit)
{
    size_t a, b;
    windows(s->span, &a, &b);
    for (size_t i = 0; i < a && i < limit; i++)
        if (q[i] != pat(s->seed, i))
            return i;
    for (size_t i = b; i < s->span && i < limit; i++)
        if (q[i] != pat(s->seed, i))
            return i;
    return SIZE_MAX;
}

void fz_model_check(const fz_model_t *m, unsigned i, const char *when)
{
    const fz_slot_t *s = &m->slot[i];
    if (s->p == NULL || s->tainted)
        return;
    size_t bad = first_bad(s, s->p, SIZE_MAX);
    if (bad != SIZE_MAX)
        fz_fail("contents of slot %u (%zu-byte block %p) changed at offset %zu %s: "
                "found %#x, wrote %#x", i, s->req, (void *)s->p, bad, when, s->p[bad],
                pat(s->seed, bad));
}

/* ---- sizes ------------------------------------------------------------- */

/* A request size from the tcache, fastbin, small, large or mmap range,
 * capped at max; with fail_ok, sometimes one that must fail (> PTRDIFF_MAX). */
size_t fz_draw_size(fz_in_t *in, size_t max, bool fail_ok, bool *fails)
{
    unsigned c = fz_u8(in);
    size_t n;
    *fails = false;
    switch (c % 8) {
    case 0: n = fz_u16(in) % 1033; break;                       /* tcache      */
    case 1: n = fz_u8(in) % 161; break;                         /* fastbin     */
    case 2: n = fz_u16(in) % 1009; break;                       /* small       */
    case 3: n = 1024 + fz_u32(in) % (128 * 1024 - 1024); break; /* large       */
    case 4: n = 128 * 1024 + fz_u32(in) % (896 * 1024); break;  /* mmap        */
    case 5: n = fz_u8(in) % 33; break;                          /* tiny        */
    case 6:                                                      /* pages */
        n = 4096 * (fz_u8(in) % 40);
        n = n + fz_u8(in) % 3 * 8 - 8;
        break;
    default:
        if (fail_ok && c & 8) {
            static const size_t huge[] = { SIZE_MAX, SIZE_MAX - 15, (size_t)PTRDIFF_MAX + 1,
                                           (size_t)1 << 62, SIZE_MAX - 4095 };
            *fails = true;
            return huge[fz_u8(in) % 5];
        }
        n = fz_u16(in);
    }
    if (n > max)
        n %= max + 1;
    return n;
}

/* An alignment for memalign/aligned_alloc/posix_memalign: a power of two up
 * to 1 MiB mostly, sometimes not one (rounded up, or EINVAL), sometimes
 * one too big for any block (EINVAL). */
static size_t draw_align(fz_in_t *in)
{
    unsigned c = fz_u8(in);
    if (c < 200)
        return (size_t)1 << (c % 21);
    if (c < 240)
        return fz_u16(in);                          /* anything, 0 included */
    return c & 1 ? SIZE_MAX : (SIZE_MAX >> 1) + 2;  /* never satisfiable */
}

static size_t pow2_at_least(size_t a)
{
    size_t p = 16;
    while (p < a && p != 0)
        p <<= 1;
    return p;
}

/* A malloc-family call the model made (ok: it succeeded); from a signal
 * handler, counted for tune.c's check of chunkguard's own count. */
static void note(fz_model_t *m, bool ok)
{
    m->calls++;
    m->ok_calls += ok;
}

/* An ordinary block freed from a signal handler: the free waits for the
 * thread's next call from outside. */
static void note_deferred(fz_model_t *m, const fz_slot_t *s)
{
    if (!m->in_handler || s->served)
        return;
    if (m->deferred < sizeof m->deferred_p / sizeof m->deferred_p[0])
        m->deferred_p[m->deferred] = s->p;
    m->deferred++;
}

/* ---- placing a new block ----------------------------------------------- */

static void no_overlap(const fz_model_t *m, unsigned i)
{
    const fz_slot_t *s = &m->slot[i];
    for (unsigned j = 0; j < m->nslots; j++) {
        const fz_slot_t *t = &m->slot[j];
        if (j == i || t->p == NULL)
            continue;
        if (s->p < t->p + t->span && t->p < s->p + s->span)
            fz_fail("slot %u's block [%p, +%zu) overlaps slot %u's [%p, +%zu)", i,
                    (void *)s->p, s->span, j, (void *)t->p, t->span);
    }
}

/* A successful allocation of req bytes into slot i: check alignment and
 * usable size, place it, fill its windows. */
void fz_model_place(fz_model_t *m, unsigned i, void *p, size_t req, size_t align, int how,
                    uint32_t seed)
{
    fz_slot_t *s = &m->slot[i];
    if (p == NULL)
        fz_fail("op %d of %zu bytes failed (errno %d) with %zu bytes live", how, req, errno,
                m->live);
    if (((uintptr_t)p & (align - 1)) != 0)
        fz_fail("block %p of %zu bytes is not %zu-byte aligned (how %d)", p, req, align, how);
    size_t u = malloc_usable_size(p);
    note(m, true);
    if (u < req || (m->debug && u != req))
        fz_fail("malloc_usable_size(%p) = %zu for a request of %zu (how %d)", p, u, req, how);
    *s = (fz_slot_t){ .p = p, .req = req, .span = u, .align = align, .how = (uint8_t)how,
                      .served = m->in_handler };
    m->live += u;
    no_overlap(m, i);
    fill(s, seed);
}

static void forget(fz_model_t *m, fz_slot_t *s)
{
    if (m->nfreed < UINT32_MAX) {
        m->freed[m->nfreed % FZ_FREED] = (fz_freed_t){ s->p, s->req };
        m->nfreed++;
    }
    m->live -= s->span;
    s->p = NULL;
    s->tainted = false;
}

/* Release s's block with a delete of its own family (new or new[],
 * aligned or not); sel picks the plain, sized or nothrow form. */
static void cxx_delete(const fz_slot_t *s, unsigned sel)
{
    bool arr = s->how == FZ_HOW_NEW_ARRAY;
    size_t al = s->asked;
    switch ((al != 0) * 3 + sel % 3) {
    case 0: (arr ? _ZdaPv : _ZdlPv)(s->p); break;
    case 1: (arr ? _ZdaPvm : _ZdlPvm)(s->p, s->req); break;
    case 2: (arr ? _ZdaPvRKSt9nothrow_t : _ZdlPvRKSt9nothrow_t)(s->p, &fz_nothrow); break;
    case 3: (arr ? _ZdaPvSt11align_val_t : _ZdlPvSt11align_val_t)(s->p, al); break;
    case 4: (arr ? _ZdaPvmSt11align_val_t : _ZdlPvmSt11align_val_t)(s->p, s->req, al); break;
    default:
        (arr ? _ZdaPvSt11align_val_tRKSt9nothrow_t : _ZdlPvSt11align_val_tRKSt9nothrow_t)(
            s->p, al, &fz_nothrow);
    }
}

void fz_model_free(fz_model_t *m, unsigned i, unsigned sel)
{
    fz_slot_t *s = &m->slot[i];
    if (s->p == NULL)
        return;
    fz_model_check(m, i, "before free");
    if (s->tainted && m->on_release != NULL)
        m->on_release(m, s);
    if (s->p == NULL)                   /* on_release dealt with it */
        return;
    errno = EDOM;
    bool sized_ok = s->how == FZ_HOW_MALLOC || s->how == FZ_HOW_CALLOC || s->how == FZ_HOW_REALLOC;
    if (s->how == FZ_HOW_NEW || s->how == FZ_HOW_NEW_ARRAY)
        cxx_delete(s, sel);
    else if (sel % 3 == 1 && sized_ok)
        free_sized(s->p, s->req);
    else if (sel % 3 == 2 && s->how == FZ_HOW_ALIGNED)
        free_aligned_sized(s->p, s->asked, s->req);
    else
        free(s->p);
    note(m, true);
    note_deferred(m, s);
    if (errno != EDOM)
        fz_fail("free changed errno to %d", errno);
    forget(m, s);
}

/* ---- the ops ------------------------------------------------------------ */

/* Room for n more bytes under the live cap? */
bool fz_model_room(const fz_model_t *m, size_t n)
{
    return n <= m->max_live && m->live <= m->max_live - n;
}

static void expect_fail(void *p, int err, const char *what, size_t n)
{
    if (p != NULL)
        fz_fail("%s(%zu) succeeded (%p); it must fail", what, n, p);
    if (errno != err)
        fz_fail("%s(%zu) failed with errno %d, not %d", what, n, errno, err);
}

static void op_realloc(fz_model_t *m, unsigned i, size_t nmemb, size_t size, bool array,
                       bool fails)
{
    fz_slot_t *s = &m->slot[i];
    size_t n;
    bool ovf = __builtin_mul_overflow(nmemb, size, &n);
    if (!fails && !ovf && s->p != NULL && n > s->req && !fz_model_room(m, n - s->req))
        return;
    if (!fails && !ovf && s->p == NULL && !fz_model_room(m, n))
        return;
    if (s->how == FZ_HOW_NEW || s->how == FZ_HOW_NEW_ARRAY)
        fz_model_free(m, i, 0);        /* realloc of a new'd block is a mismatch */
    fz_model_check(m, i, "before realloc");
    if (s->tainted && m->on_release != NULL) {
        m->on_release(m, s);
        if (s->p == NULL)
            return;
    }
    fz_slot_t old = *s;
    errno = 0;
    void *q = array ? reallocarray(s->p, nmemb, size) : realloc(s->p, size);
    bool freed = old.p != NULL && (q != NULL || (n == 0 && !array && !fails && !ovf));
    note(m, q != NULL || freed);
    if (freed)
        note_deferred(m, &old);
    if (fails || ovf) {
        expect_fail(q, ENOMEM, array ? "reallocarray" : "realloc", n);
        if (s->p != NULL && first_bad(s, s->p, SIZE_MAX) != SIZE_MAX)
            fz_fail("a failed realloc changed the block it kept");
        return;
    }
    if (old.p != NULL && n == 0 && !array) {
        /* glibc 2.36: realloc(p, 0) frees p and returns NULL */
        if (q != NULL)
            fz_fail("realloc(p, 0) returned %p, not NULL", q);
        forget(m, s);
        return;
    }
    if (old.p != NULL) {
        size_t bad = q != NULL ? first_bad(&old, q, old.req < n ? old.req : n) : SIZE_MAX;
        if (bad != SIZE_MAX)
            fz_fail("realloc(%p, %zu) to %p lost byte %zu of the %zu-byte block", (void *)old.p,
                    n, q, bad, old.req);
        m->live -= old.span;
        s->p = NULL;
    }
    fz_model_place(m, i, q, n, 16, FZ_HOW_REALLOC, old.seed + 1);
}

void fz_model_restore_params(fz_model_t *m)
{
    if (!m->mallopt_ok)
        return;
    mallopt(M_MXFAST, m->debug ? 0 : 128);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    mallopt(M_TOP_PAD, 0);
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_PERTURB, 0);
    mallopt(M_MMAP_MAX, 65536);
}

static void op_aligned(fz_model_t *m, fz_in_t *in, unsigned i, unsigned op)
{
    size_t align = draw_align(in);
    bool fails;
    size_t n = fz_draw_size(in, m->max_size, true, &fails);
    if (!fails && !fz_model_room(m, n + (align < (1u << 21) ? align : 0)))
        return;
    fz_model_free(m, i, fz_u8(in));
    bool too_big = align > (SIZE_MAX >> 1) + 1;
    errno = 0;
    if (op == FZ_OP_POSIX_MEMALIGN) {
        void *p = (void *)m;          /* must stay untouched on failure */
        int r = posix_memalign(&p, align, n);
        note(m, r == 0);
        bool bad = align < sizeof(void *) || (align & (align - 1)) != 0;
        if (bad || fails || too_big) {
            if (r != (bad ? EINVAL : ENOMEM) || p != (void *)m || errno != (bad ? 0 : ENOMEM))
                fz_fail("posix_memalign(%zu, %zu) = %d, errno %d, ptr %s", align, n, r, errno,
                        p == (void *)m ? "kept" : "changed");
            return;
        }
        if (r != 0)
            fz_fail("posix_memalign(%zu, %zu) = %d", align, n, r);
        fz_model_place(m, i, p, n, pow2_at_least(align), FZ_HOW_POSIX, fz_u8(in));
        return;
    }
    void *p = op == FZ_OP_MEMALIGN ? memalign(align, n) : aligned_alloc(align, n);
    note(m, p != NULL);
    if (too_big) {
        expect_fail(p, EINVAL, "memalign", align);
        return;
    }
    if (fails) {
        expect_fail(p, ENOMEM, "memalign", n);
        return;
    }
    fz_model_place(m, i, p, n, pow2_at_least(align),
                   op == FZ_OP_MEMALIGN ? FZ_HOW_MEMALIGN : FZ_HOW_ALIGNED, fz_u8(in));
    m->slot[i].asked = align;        /* what free_aligned_sized must be given */
}

/* FZ_OP_CXX: one of the eight operator new forms.  The throwing forms
 * get sizes that can be had (a failure would throw, which a C program
 * cannot catch: it aborts); the nothrow forms sometimes impossible sizes
 * or, aligned, an alignment that is not a power of two, and must return
 * NULL.  The block is 16-byte aligned, or to the alignment asked for. */
static void *cxx_new(unsigned form, size_t n, size_t al)
{
    switch (form) {
    case 0: return _Znwm(n);
    case 1: return _Znam(n);
    case 2: return _ZnwmSt11align_val_t(n, al);
    case 3: return _ZnamSt11align_val_t(n, al);
    case 4: return _ZnwmRKSt9nothrow_t(n, &fz_nothrow);
    case 5: return _ZnamRKSt9nothrow_t(n, &fz_nothrow);
    case 6: return _ZnwmSt11align_val_tRKSt9nothrow_t(n, al, &fz_nothrow);
    default: return _ZnamSt11align_val_tRKSt9nothrow_t(n, al, &fz_nothrow);
    }
}

/* A throwing form (form 0..3) that cannot succeed — an impossible size,
 * or, aligned, an alignment that is not a power of two — in a forked
 * child, which must die of SIGABRT: with no C++ runtime loaded (no
 * new_handler, no std::bad_alloc to throw) after chunkguard's line
 * (src/entry/cxx.c); with one (libFuzzer's builds link libstdc++) by
 * std::terminate, the bad_alloc thrown through C frames uncaught. */
static void cxx_new_fails_child(unsigned form, size_t n, size_t al)
{
    int fd;
    pid_t pid = fz_fork_child(&fd);
    if (pid == 0) {
        dup2(fd, 2);                     /* the line, to the parent */
        void *p = cxx_new(form, n, al);
        char msg[64];
        int k = snprintf(msg, sizeof msg, "returned %p", p);
        (void)!write(fd, msg, (size_t)k);
        fz_child_exit(0);
    }
    char msg[2048];
    int st = fz_child_end(pid, fd, msg, sizeof msg);
    bool runtime = dlsym(RTLD_DEFAULT, "_ZSt17__throw_bad_allocv") != NULL;
    const char *want = runtime ? "throwing an instance of 'std::bad_alloc'"
                               : "no C++ runtime is loaded to throw std::bad_alloc";
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT || strstr(msg, want) == NULL)
        fz_fail("operator new form %u of %zu bytes, align %zu, that must fail: the child %s %d, "
                "'%.300s' (wanted '%s', then SIGABRT)", form, n, al,
                WIFSIGNALED(st) ? "died of signal" : "exited",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), msg, want);
}

static void op_cxx(fz_model_t *m, fz_in_t *in, unsigned i)
{
    unsigned sel = fz_u8(in);
    bool arr = sel & 1, aligned = sel & 2, nothrow = sel & 4;
    size_t al = aligned ? (size_t)1 << fz_u8(in) % 21 : 0;
    if (!nothrow && (sel & 0xc0) == 0x40) {
        static const size_t huge[] = { SIZE_MAX, (size_t)PTRDIFF_MAX + 1, (size_t)1 << 62 };
        unsigned k = fz_u8(in);
        if (aligned && k & 4)
            cxx_new_fails_child(sel & 3, 64, al * 3 + 1 + 2 * (al == 1));
        else
            cxx_new_fails_child(sel & 3, huge[k % 3], al);
        return;
    }
    bool fails, bad_align = false;
    size_t n = fz_draw_size(in, m->max_size, nothrow, &fails);
    if (aligned && nothrow && sel & 8 && !fails) {
        al = al * 3 + 1 + 2 * (al == 1);     /* 3, 7, 13, ...: never a power of two */
        bad_align = true;
    }
    if (!fails && !bad_align && !fz_model_room(m, n + (al < (1u << 21) ? al : 0)))
        return;
    fz_model_free(m, i, fz_u8(in));
    void *p = cxx_new(arr + 2 * aligned + 4 * nothrow, n, al);
    note(m, p != NULL);
    if (fails || bad_align) {
        if (p != NULL)
            fz_fail("nothrow operator new%s(%zu, align %zu) succeeded (%p); it must fail",
                    arr ? "[]" : "", n, al, p);
        return;
    }
    fz_model_place(m, i, p, n, aligned ? pow2_at_least(al) : 16,
                   arr ? FZ_HOW_NEW_ARRAY : FZ_HOW_NEW, fz_u8(in));
    m->slot[i].asked = al;           /* what the aligned deletes must be given */
    if ((sel & 0x30) == 0x30 && m->mismatch != NULL)
        m->mismatch(m, i, fz_u8(in));
}

bool fz_model_step(fz_model_t *m, fz_in_t *in, void (*handoff)(fz_model_t *m, unsigned slot))
{
    if (!fz_more(in))
        return false;
    unsigned byte = fz_u8(in);
    unsigned op = m->cxx_ok && byte == 0xf0 ? FZ_OP_CXX : byte % FZ_NOPS;
    if (op == FZ_OP_INJECT && m->inject_exact && byte != FZ_OP_INJECT)
        op = FZ_OP_CHECK;
    unsigned i = fz_u8(in) % m->nslots;
    fz_model_do(m, in, op, i, handoff);
    return true;
}

void fz_model_do(fz_model_t *m, fz_in_t *in, unsigned op, unsigned i,
                 void (*handoff)(fz_model_t *m, unsigned slot))
{
    fz_slot_t *s = &m->slot[i];
    bool fails;
    switch (op) {
    case FZ_OP_MALLOC: {
        size_t n = fz_draw_size(in, m->max_size, true, &fails);
        if (!fails && !fz_model_room(m, n))
            break;
        fz_model_free(m, i, fz_u8(in));
        errno = 0;
        void *p = malloc(n);
        note(m, p != NULL);
        if (fails)
            expect_fail(p, ENOMEM, "malloc", n);
        else
            fz_model_place(m, i, p, n, 16, FZ_HOW_MALLOC, fz_u8(in));
        break;
    }
    case FZ_OP_CALLOC: {
        size_t nmemb = fz_u8(in) % 9, size = fz_draw_size(in, m->max_size, true, &fails), n;
        if (fz_u8(in) == 0xff)
            nmemb = SIZE_MAX / 2;                    /* overflows for any size > 2 */
        bool ovf = __builtin_mul_overflow(nmemb, size, &n);
        if (!fails && !ovf && !fz_model_room(m, n))
            break;
        fz_model_free(m, i, 0);
        errno = 0;
        unsigned char *p = calloc(nmemb, size);
        note(m, p != NULL);
        if ((fails && nmemb != 0) || ovf) {
            expect_fail(p, ENOMEM, "calloc", size);
            break;
        }
        if (fails)                                    /* 0 * huge == 0 */
            n = 0;
        if (p == NULL)
            fz_fail("calloc(%zu, %zu) failed", nmemb, size);
        for (size_t k = 0; k < n; k++)
            if (p[k] != 0)
                fz_fail("calloc(%zu, %zu): byte %zu is %#x, not 0", nmemb, size, k, p[k]);
        fz_model_place(m, i, p, n, 16, FZ_HOW_CALLOC, fz_u8(in));
        break;
    }
    case FZ_OP_REALLOC: {
        size_t n = fz_draw_size(in, m->max_size, true, &fails);
        op_realloc(m, i, 1, n, false, fails);
        break;
    }
    case FZ_OP_REALLOCARRAY: {
        size_t nmemb = fz_u8(in) % 5, size = fz_draw_size(in, m->max_size / 4, false, &fails);
        if (fz_u8(in) == 0xff)
            nmemb = SIZE_MAX / 3;
        if (nmemb == 0 || size == 0)    /* reallocarray(p, 0, x) frees, as realloc */
            nmemb = 1, size = size ? size : 1;
        op_realloc(m, i, nmemb, size, true, false);
        break;
    }
    case FZ_OP_MEMALIGN: case FZ_OP_POSIX_MEMALIGN: case FZ_OP_ALIGNED_ALLOC:
        op_aligned(m, in, i, op);
        break;
    case FZ_OP_FREE:
    case FZ_OP_FREE_SIZED:
        fz_model_free(m, i, op == FZ_OP_FREE ? 0 : fz_u8(in));
        break;
    case FZ_OP_USABLE:
        if (s->p != NULL && !s->tainted) {
            size_t u = malloc_usable_size(s->p);
            note(m, true);
            if (u != s->span)
                fz_fail("malloc_usable_size(%p) changed from %zu to %zu", (void *)s->p, s->span,
                        u);
        }
        note(m, false);
        if (malloc_usable_size(NULL) != 0)
            fz_fail("malloc_usable_size(NULL) != 0");
        break;
    case FZ_OP_WRITE:
        if (s->p != NULL && !s->tainted) {
            fz_model_check(m, i, "before a rewrite");
            fill(s, s->seed * 31 + fz_u8(in));
        }
        break;
    case FZ_OP_CHECK:
        fz_model_check(m, i, "at a check");
        break;
    case FZ_OP_VALLOC: {
        size_t n = fz_draw_size(in, m->max_size, false, &fails);
        bool pv = fz_u8(in) & 1;
        if (!fz_model_room(m, n + 8192))
            break;
        fz_model_free(m, i, 0);
        void *p = pv ? pvalloc(n) : valloc(n);
        note(m, p != NULL);
        size_t ps = (size_t)sysconf(_SC_PAGESIZE);
        size_t want = pv ? (n + ps - 1) / ps * ps + (n == 0 ? ps : 0) : n;
        /* pvalloc's request is n rounded up to whole pages (one at least) */
        fz_model_place(m, i, p, want, ps, FZ_HOW_VALLOC, fz_u8(in));
        break;
    }
    case FZ_OP_TUNE:
        fz_op_tune(m, in, i);
        break;
    case FZ_OP_HANDOFF:
        if (handoff != NULL && s->p != NULL && !s->tainted)
            handoff(m, i);
        else
            fz_model_free(m, i, fz_u8(in));
        break;
    case FZ_OP_CXX:
        op_cxx(m, in, i);
        break;
    case FZ_OP_INJECT:
        if (m->inject != NULL)
            m->inject(m, in);
        else
            fz_model_check(m, i, "at a check");
        break;
    }
}

void fz_model_release_all(fz_model_t *m)
{
    for (unsigned i = 0; i < m->nslots; i++)
        fz_model_free(m, i, i);
    fz_model_restore_params(m);
    if (m->live != 0)
        fz_fail("model bookkeeping: %zu bytes live after releasing all", m->live);
}

void fz_model_init(fz_model_t *m, unsigned nslots, bool debug)
{
    memset(m, 0, sizeof *m);
    m->nslots = nslots;
    m->debug = debug;
    m->mallopt_ok = true;
    m->max_size = 1024 * 1024;
    m->mmap_floor = 128 * 1024;
    /* fast mode touches only the windows of a block: room to outgrow a
     * 64 MiB heap (a second heap, then trimming back to one) */
    m->max_live = debug ? 32u << 20 : 96u << 20;
}

void fz_model_adopt(fz_model_t *m, unsigned i, const fz_slot_t *s)
{
    fz_model_free(m, i, 0);
    m->slot[i] = *s;
    m->live += s->span;
    fz_model_check(m, i, "after a hand-off between threads");
}

static int by_addr(const void *a, const void *b)
{
    const fz_slot_t *x = *(const fz_slot_t *const *)a, *y = *(const fz_slot_t *const *)b;
    return x->p < y->p ? -1 : x->p > y->p;
}

void fz_models_no_overlap(fz_model_t *const *ms, size_t n)
{
    static const fz_slot_t *all[FZ_SLOTS * 8];
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        for (unsigned i = 0; i < ms[j]->nslots; i++)
            if (ms[j]->slot[i].p != NULL && k < sizeof all / sizeof all[0])
                all[k++] = &ms[j]->slot[i];
    qsort(all, k, sizeof all[0], by_addr);
    for (size_t i = 1; i < k; i++)
        if (all[i - 1]->p + all[i - 1]->span > all[i]->p)
            fz_fail("blocks of two threads overlap: [%p, +%zu) and [%p, +%zu)",
                    (void *)all[i - 1]->p, all[i - 1]->span, (void *)all[i]->p, all[i]->span);
}
