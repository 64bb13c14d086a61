/*
 * stk_depot.c — the stack depot (src/stackdepot.c): equal stacks share an
 * id and different stacks do not, ids give the frames back, the cap, many
 * threads storing the same stacks at once, and the memory each stack costs.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "stk_util.h"

/* A deterministic "stack" for key k of n frames: code-like addresses. */
static void make_stack(uintptr_t *pcs, size_t n, uint64_t k)
{
    uint64_t x = k * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        pcs[i] = (uintptr_t)(x >> 16);   /* 48 bits: no accidental equal stacks */
    }
}

static void assert_frames(uint32_t id, const uintptr_t *want, size_t n)
{
    const uintptr_t *got = (const uintptr_t *)1;
    size_t m = cg_stack_get(id, &got);
    cr_assert_eq(m, n, "id %u: %zu frames, want %zu", id, m, n);
    cr_assert_not_null(got);
    cr_assert_eq(memcmp(got, want, n * sizeof *want), 0, "id %u: frames differ", id);
}

Test(depot, equal_stacks_share_an_id)
{
    enum { N = 3000 };
    static uint32_t ids[N];
    uintptr_t pcs[CG_STACK_MAX];
    for (int k = 0; k < N; k++) {
        size_t n = 1 + (size_t)k % CG_STACK_MAX;
        make_stack(pcs, n, (uint64_t)k);
        ids[k] = cg_stack_put(pcs, n);
        cr_assert_neq(ids[k], 0, "stack %d not stored", k);
    }
    for (int k = 0; k < N; k++) {
        size_t n = 1 + (size_t)k % CG_STACK_MAX;
        make_stack(pcs, n, (uint64_t)k);
        uintptr_t copy[CG_STACK_MAX];
        memcpy(copy, pcs, n * sizeof *pcs);            /* equal, not the same memory */
        cr_assert_eq(cg_stack_put(copy, n), ids[k], "stack %d stored twice", k);
        assert_frames(ids[k], pcs, n);
    }
    cg_stackdepot_stats_t st;
    cg_stackdepot_stats(&st);
    cr_assert_eq(st.stacks, N, "%zu stacks stored for %d distinct", st.stacks, N);
}

Test(depot, different_stacks_get_different_ids)
{
    uintptr_t base[8], v[8];
    make_stack(base, 8, 42);
    uint32_t id = cg_stack_put(base, 8);
    memcpy(v, base, sizeof v);
    v[7] ^= 0x10;                                   /* last frame differs */
    uint32_t id_last = cg_stack_put(v, 8);
    memcpy(v, base, sizeof v);
    v[0] ^= 0x10;                                   /* first frame differs */
    uint32_t id_first = cg_stack_put(v, 8);
    uint32_t id_prefix = cg_stack_put(base, 7);     /* a prefix */
    uintptr_t swapped[8];
    memcpy(swapped, base, sizeof swapped);
    swapped[2] = base[3];
    swapped[3] = base[2];                           /* same frames, other order */
    uint32_t id_swap = cg_stack_put(swapped, 8);
    uint32_t all[] = {id, id_last, id_first, id_prefix, id_swap};
    for (int i = 0; i < 5; i++) {
        cr_assert_neq(all[i], 0);
        for (int j = 0; j < i; j++)
            cr_assert_neq(all[i], all[j], "stacks %d and %d share id %u", i, j, all[i]);
    }
    assert_frames(id_prefix, base, 7);
    assert_frames(id_swap, swapped, 8);
}

Test(depot, no_stack_and_unknown_ids)
{
    uintptr_t pcs[4] = {1, 2, 3, 4};
    cr_assert_eq(cg_stack_put(pcs, 0), 0);
    cr_assert_eq(cg_stack_put(NULL, 3), 0);
    const uintptr_t *got = pcs;
    cr_assert_eq(cg_stack_get(0, &got), 0);
    cr_assert_null(got);
    uint32_t id = cg_stack_put(pcs, 4);
    cr_assert_neq(id, 0);
    uint32_t bogus[] = {id + 1, id + 2, 12345, 1u << 20, 0x7fffffffu, 0xffffffffu};
    for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
        got = pcs;
        cr_assert_eq(cg_stack_get(bogus[i], &got), 0, "unknown id %u gave frames", bogus[i]);
        cr_assert_null(got);
    }
    assert_frames(id, pcs, 4);
}

Test(depot, longer_than_max_keeps_the_first_64)
{
    uintptr_t pcs[CG_STACK_MAX + 36];
    make_stack(pcs, CG_STACK_MAX + 36, 7);
    uint32_t id = cg_stack_put(pcs, CG_STACK_MAX + 36);
    cr_assert_neq(id, 0);
    assert_frames(id, pcs, CG_STACK_MAX);
    cr_assert_eq(cg_stack_put(pcs, CG_STACK_MAX), id);
}

Test(depot, cap_refuses_new_stacks_but_finds_old)
{
    cg_stackdepot_set_cap(16 * 1024);
    uintptr_t pcs[16];
    uint32_t first = 0, last = 0;
    int stored = 0, k = 0;
    for (; k < 1000; k++) {
        make_stack(pcs, 16, (uint64_t)k);
        uint32_t id = cg_stack_put(pcs, 16);
        if (id == 0)
            break;
        if (first == 0)
            first = id;
        last = id;
        stored++;
    }
    cr_assert_lt(k, 1000, "the cap never refused a stack");
    cg_stackdepot_stats_t st;
    cg_stackdepot_stats(&st);
    cr_assert_leq(st.used_bytes, 16 * 1024, "used %zu bytes past a 16 KiB cap", st.used_bytes);
    cr_assert_eq(st.stacks, (size_t)stored);
    cr_assert_geq(st.refused, 1);
    make_stack(pcs, 16, 0);
    cr_assert_eq(cg_stack_put(pcs, 16), first, "a stored stack is no longer found");
    assert_frames(first, pcs, 16);
    make_stack(pcs, 16, (uint64_t)stored - 1);
    cr_assert_eq(cg_stack_put(pcs, 16), last);
    make_stack(pcs, 16, 5000);
    cr_assert_eq(cg_stack_put(pcs, 16), 0, "a new stack was stored past the cap");
    cg_stackdepot_set_cap(CG_STACKDEPOT_DEFAULT_CAP);
    cr_assert_neq(cg_stack_put(pcs, 16), 0, "raising the cap again did not help");
}

enum { T_THREADS = 4, T_STACKS = 4000 };
static uint32_t t_ids[T_THREADS][T_STACKS];

static void *put_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    uintptr_t pcs[CG_STACK_MAX];
    for (int i = 0; i < T_STACKS; i++) {
        int k = t % 2 ? T_STACKS - 1 - i : (i * 7 + t) % T_STACKS;   /* other orders */
        size_t n = 1 + (size_t)k % 24;
        make_stack(pcs, n, (uint64_t)k);
        t_ids[t][k] = cg_stack_put(pcs, n);
        const uintptr_t *got;
        if (cg_stack_get(t_ids[t][k], &got) != n || memcmp(got, pcs, n * sizeof *pcs) != 0)
            return (void *)1;
    }
    return NULL;
}

Test(depot, threads_agree_on_ids)
{
    pthread_t th[T_THREADS];
    for (int t = 0; t < T_THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, put_thread, (void *)(intptr_t)t), 0);
    for (int t = 0; t < T_THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        cr_assert_null(r, "thread %d read back wrong frames", t);
    }
    for (int k = 0; k < T_STACKS; k++) {
        cr_assert_neq(t_ids[0][k], 0);
        for (int t = 1; t < T_THREADS; t++)
            cr_assert_eq(t_ids[t][k], t_ids[0][k], "stack %d: thread %d got id %u, thread 0 %u", k,
                         t, t_ids[t][k], t_ids[0][k]);
    }
    cg_stackdepot_stats_t st;
    cg_stackdepot_stats(&st);
    cr_assert_eq(st.stacks, T_STACKS, "%zu stacks stored for %d distinct", st.stacks, T_STACKS);
}

Test(depot, memory_per_stack)
{
    static const size_t depths[] = {1, 4, 16, 64};
    uintptr_t pcs[CG_STACK_MAX];
    uint64_t key = 1;
    for (size_t d = 0; d < 4; d++) {
        cg_stackdepot_stats_t a, b;
        cg_stackdepot_stats(&a);
        enum { N = 5000 };
        for (int i = 0; i < N; i++) {
            make_stack(pcs, depths[d], key++);
            cr_assert_neq(cg_stack_put(pcs, depths[d]), 0);
        }
        cg_stackdepot_stats(&b);
        size_t per = (b.used_bytes - a.used_bytes) / N;
        printf("depot: %2zu-frame stacks: %zu bytes each (%zu KiB mapped for %zu stacks, "
               "table %zu KiB of address space)\n",
               depths[d], per, b.mapped_bytes / 1024, b.stacks, b.table_bytes / 1024);
        cr_assert_eq(per, 16 + 8 * depths[d], "%zu-frame stack: %zu bytes", depths[d], per);
    }
    cg_stackdepot_stats_t st;
    cg_stackdepot_stats(&st);
    /* Records span several 1 MiB chunks; every one is still found. */
    cr_assert_gt(st.mapped_bytes, (size_t)2 << 20);
    key = 1;
    for (size_t d = 0; d < 4; d++)
        for (int i = 0; i < 5000; i++) {
            make_stack(pcs, depths[d], key++);
            uint32_t id = cg_stack_put(pcs, depths[d]);
            assert_frames(id, pcs, depths[d]);
        }
    cg_stackdepot_stats_t after;
    cg_stackdepot_stats(&after);
    cr_assert_eq(after.stacks, st.stacks, "looking stacks up stored new ones");
}
