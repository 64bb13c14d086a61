/*
 * reuse.c — per-thread caches of chunks that left the quarantine (see
 * reuse.h).
 */
#include "reuse.h"
#include "dthread.h"

#define EXACT 60                       /* classes of 16 bytes: 64 .. 1008 */

/* The class of the largest bound at or below chunk size s (a multiple of
 * 16, 64 <= s < CG_REUSE_MAX_CHUNK). */
static size_t class_floor(size_t s)
{
    if (s < 1024)
        return s / 16 - 4;
    unsigned lg = 63u - (unsigned)__builtin_clzl(s);          /* 10 .. 14 */
    return EXACT + (lg - 10) * 8 + ((s >> (lg - 3)) & 7);
}

/* The smallest chunk size of class k. */
static size_t class_lower(size_t k)
{
    if (k < EXACT)
        return (k + 4) * 16;
    k -= EXACT;
    return (8 + k % 8) << (k / 8 + 7);
}

/* Blocks a class keeps (n[] is 16 bits): the byte limit is what binds. */
#define CLASS_CAP 65535

static size_t chunk_bytes(const cg_shadow_t *r)
{
    return r->head & ~CG_FLAG_BITS;
}

bool cg_reuse_put(cg_shadow_t *r, size_t limit)
{
    size_t size = chunk_bytes(r);
    if ((r->head & CG_IS_MMAPPED) || size >= CG_REUSE_MAX_CHUNK || size < 64)
        return false;
    cg_dthread_t *t = cg_dthread_peek();
    if (t == NULL)
        return false;
    cg_reuse_t *c = &t->reuse;
    size_t k = class_floor(size);
    if (c->n[k] >= CLASS_CAP || c->bytes + size > limit)
        return false;
    __atomic_store_n(&r->state, CG_SH_RELEASED, __ATOMIC_RELEASE);
    r->next = c->head[k];
    c->head[k] = r->id;
    c->n[k]++;
    CG_STORE(c->bytes, c->bytes + size);
    return true;
}

size_t cg_reuse_round(size_t nb)
{
    if (nb < 1024 || nb >= CG_REUSE_MAX_CHUNK)
        return nb;
    size_t k = class_floor(nb);
    return class_lower(k) < nb ? class_lower(k + 1) : nb;
}

cg_shadow_t *cg_reuse_get(size_t nb)
{
    cg_dthread_t *t = cg_dthread_peek();
    if (t == NULL || t->reuse.bytes == 0 || nb >= CG_REUSE_MAX_CHUNK)
        return NULL;
    cg_reuse_t *c = &t->reuse;
    size_t k = class_floor(nb);
    if (class_lower(k) < nb)
        k++;
    if (k >= CG_REUSE_CLASSES || c->head[k] == 0)
        return NULL;
    cg_shadow_t *r = cg_shadow_at(c->head[k]);
    c->head[k] = r->next;
    if (r->next != 0)          /* the class's next pop: a hit */
        __builtin_prefetch(cg_shadow_at(r->next));
    c->n[k]--;
    CG_STORE(c->bytes, c->bytes - chunk_bytes(r));
    r->next = 0;
    return r;
}

uint32_t cg_reuse_drain(void)
{
    cg_dthread_t *t = cg_dthread_peek();
    if (t == NULL || t->reuse.bytes == 0)
        return 0;
    cg_reuse_t *c = &t->reuse;
    uint32_t chain = 0;
    for (size_t k = 0; k < CG_REUSE_CLASSES; k++)
        while (c->head[k] != 0) {
            cg_shadow_t *r = cg_shadow_at(c->head[k]);
            c->head[k] = r->next;
            r->next = chain;
            chain = r->id;
        }
    for (size_t k = 0; k < CG_REUSE_CLASSES; k++)
        c->n[k] = 0;
    CG_STORE(c->bytes, 0);
    return chain;
}

/* fn on every block of cache c. */
CG_FORK_PATH static void each_of(const cg_reuse_t *c, void (*fn)(cg_shadow_t *r, void *arg), void *arg)
{
    for (size_t k = 0; k < CG_REUSE_CLASSES; k++) {
        uint32_t id = c->head[k];
        for (unsigned i = 0; id != 0 && i < c->n[k]; i++) {
            cg_shadow_t *r = cg_shadow_at(id);
            id = r->next;
            fn(r, arg);
        }
    }
}

CG_FORK_PATH void cg_reuse_each(void (*fn)(cg_shadow_t *r, void *arg), void *arg, bool all)
{
    if (!all) {
        cg_dthread_t *t = cg_dthread_peek();
        if (t != NULL)
            each_of(&t->reuse, fn, arg);
        return;
    }
    for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all)
        each_of(&t->reuse, fn, arg);
}

size_t cg_reuse_held(void)
{
    size_t bytes = 0;
    for (cg_dthread_t *t = cg_dthread_first(); t != NULL; t = t->all)
        bytes += CG_LOAD(t->reuse.bytes);
    return bytes;
}
