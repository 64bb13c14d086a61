/*
 * stackmemo.c — the memo of whole stacks (see stackmemo.h).
 */
#include "stackmemo.h"

#include "stack.h"

/* 2^MEMO_SET_BITS sets of MEMO_WAYS entries.  A test may build a smaller
 * table (-DCG_STACK_MEMO_SET_BITS=0: one set). */
#ifdef CG_STACK_MEMO_SET_BITS
#define MEMO_SET_BITS CG_STACK_MEMO_SET_BITS
#else
#define MEMO_SET_BITS 9
#endif
#define MEMO_WAYS 2
#define MEMO_ENTRIES (MEMO_WAYS << MEMO_SET_BITS)
#define MEMO_FRAMES 32
#define MEMO_WORDS (2 * MEMO_FRAMES)
#define MEMO_STRIKES 4            /* stale memos of one key before giving up */

/* Always 1.  tests/suites/56-debug-perf.sh builds the library with 0 (a
 * memo is used without comparing the stack words) to show its test of a
 * stale memo fails. */
#ifndef CG_STACK_MEMO_VERIFY
#define CG_STACK_MEMO_VERIFY 1
#endif

enum { E_EMPTY = 0, E_SEEN, E_FILLED, E_GIVEN_UP };

typedef struct memo {
    uint32_t seq;                 /* odd while being written              */
    uint8_t state;                /* E_*                                   */
    uint8_t strikes;              /* times its memo went stale             */
    uint16_t nwords;              /* words in addr[] and val[]             */
    uint8_t misses;               /* misses since the key came or was filled */
    uint8_t mru;                  /* a set's first entry: the way used last
                                   * (a hint, outside the sequence number) */
    uint32_t id;                  /* the stack id (E_FILLED)               */
    cg_memo_key_t key;
    uintptr_t addr[MEMO_WORDS];   /* stack words the walk read ...         */
    uintptr_t val[MEMO_WORDS];    /* ... and what they held                */
} memo_t;

static memo_t *memos;             /* MEMO_ENTRIES, mapped at first use     */
static uint32_t map_state;        /* 0 not yet, 1 mapping, 2 done, 3 failed */

/* Does entry e hold key k?  The entry's fields are read with relaxed
 * atomics (another thread may be writing them; the sequence number says
 * whether what was read can be used). */
static bool same_key(const memo_t *e, const cg_memo_key_t *k)
{
    return CG_LOAD(e->key.caller) == k->caller && CG_LOAD(e->key.frame) == k->frame &&
           CG_LOAD(e->key.site) == k->site && CG_LOAD(e->key.tid) == k->tid;
}

/* The first entry of k's set. */
static memo_t *set_of(const cg_memo_key_t *k)
{
    uint64_t h = (k->caller ^ (k->frame * 0x9e3779b97f4a7c15ull) ^ k->site) *
                 0xff51afd7ed558ccdull;
    return &memos[MEMO_SET_BITS == 0 ? 0 : (h >> (64 - MEMO_SET_BITS)) * MEMO_WAYS];
}

/* Note that way w of set s was just used (a relaxed store, and only when
 * it changes: two keys of one set take turns, one key does not write). */
static void touch(memo_t *s, unsigned w)
{
    if (CG_LOAD(s->mru) != w)
        CG_STORE(s->mru, (uint8_t)w);
}

/* The stack id in entry e if it holds k, filled and still true, else 0. */
static uint32_t find_in(memo_t *e, const cg_memo_key_t *k)
{
    uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
    if ((seq & 1) || CG_LOAD(e->state) != E_FILLED || !same_key(e, k))
        return 0;
    size_t n = CG_LOAD(e->nwords);
    if (n > MEMO_WORDS)
        n = MEMO_WORDS;
    uintptr_t diff = 0;
    for (size_t i = 0; i < n; i++) {
        uintptr_t a = __atomic_load_n(&e->addr[i], __ATOMIC_RELAXED);
        /* Read our own stack only: an address is dereferenced only while
         * the entry is still the one whose key matched (a thread writing
         * it for another key first makes seq odd; x86 keeps loads in
         * order, the fence keeps the compiler from moving them). */
        __atomic_signal_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq)
            return 0;
        diff |= *(const volatile uintptr_t *)a ^ CG_LOAD(e->val[i]);
    }
    if (CG_STACK_MEMO_VERIFY && diff != 0)
        return 0;
    uint32_t id = CG_LOAD(e->id);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == seq ? id : 0;
}

uint32_t cg_stack_memo_find(const cg_memo_key_t *k)
{
    memo_t *m = __atomic_load_n(&memos, __ATOMIC_ACQUIRE);
    if (m == NULL)
        return 0;
    memo_t *s = set_of(k);
    for (unsigned w = 0; w < MEMO_WAYS; w++) {
        uint32_t id = find_in(&s[w], k);
        if (id != 0) {
            touch(s, w);
            return id;
        }
    }
    return 0;
}

static bool map_memos(void)
{
    uint32_t st = __atomic_load_n(&map_state, __ATOMIC_ACQUIRE);
    if (st == 0 && __atomic_compare_exchange_n(&map_state, &st, 1, false, __ATOMIC_ACQ_REL,
                                               __ATOMIC_ACQUIRE)) {
        memo_t *m = cg_os_map_meta(MEMO_ENTRIES * sizeof(memo_t));
        if (m != NULL)
            __atomic_store_n(&memos, m, __ATOMIC_RELEASE);
        __atomic_store_n(&map_state, m != NULL ? 2 : 3, __ATOMIC_RELEASE);
        return m != NULL;
    }
    return __atomic_load_n(&memos, __ATOMIC_ACQUIRE) != NULL;
}

/* Take an entry for writing (sequence made odd); false if another thread
 * is writing it. */
static bool begin_write(memo_t *e)
{
    uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
    if (seq & 1)
        return false;
    bool mt = !CG_SINGLE_THREAD_P;
    if (mt)
        return __atomic_compare_exchange_n(&e->seq, &seq, seq + 1, false, __ATOMIC_ACQ_REL,
                                           __ATOMIC_ACQUIRE);
    __atomic_store_n(&e->seq, seq + 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return true;
}

static void end_write(memo_t *e)
{
    __atomic_store_n(&e->seq, CG_LOAD(e->seq) + 1, __ATOMIC_RELEASE);
}

void cg_stack_memo_note(const cg_memo_key_t *k, const uintptr_t *pcs, size_t n, size_t first_prog,
                        uint32_t id)
{
    if (id == 0 || n == 0 || n > MEMO_FRAMES || !map_memos())
        return;
    /* k's entry in its set, else the one it takes: an empty one, else the
     * one used less recently (so two keys that share a set, a malloc's
     * and a free's in one loop, both keep their memos). */
    memo_t *s = set_of(k);
    unsigned way = 0;
    while (way < MEMO_WAYS && !same_key(&s[way], k))
        way++;
    bool mine = way < MEMO_WAYS;
    if (!mine) {
        way = 0;
        while (way < MEMO_WAYS && CG_LOAD(s[way].state) != E_EMPTY)
            way++;
        if (way == MEMO_WAYS)
            way = (CG_LOAD(s->mru) + 1u) % MEMO_WAYS;
    }
    touch(s, way);
    memo_t *e = &s[way];
    uint8_t state = CG_LOAD(e->state);
    if (mine && state == E_GIVEN_UP)
        return;
    if (!mine || state == E_EMPTY) {
        /* first sighting: remember the key only */
        if (begin_write(e)) {
            CG_STORE(e->key.caller, k->caller);
            CG_STORE(e->key.frame, k->frame);
            CG_STORE(e->key.site, k->site);
            CG_STORE(e->key.tid, k->tid);
            CG_STORE(e->state, (uint8_t)E_SEEN);
            CG_STORE(e->strikes, (uint8_t)0);
            CG_STORE(e->misses, (uint8_t)0);
            end_write(e);
        }
        return;
    }
    /* Seen before and missed again (never filled, or stale).  A fill walks
     * the stack again with unw_step, which (UNW_CACHE_NONE) looks every
     * frame up afresh: tens of microseconds.  So a key must miss 4 times
     * before its first fill, and twice as often before each refill: a loop
     * still gets its memo after a few calls, while a program whose stacks
     * rarely repeat at one key (a compiler) stops paying a fill per
     * capture — gcc at stack_depth=16 ran 4 times slower with fills on the
     * second miss. */
    uint8_t misses = (uint8_t)(CG_LOAD(e->misses) + 1);
    uint8_t strikes = (uint8_t)(CG_LOAD(e->strikes) + (state == E_FILLED));
    if (misses < (4u << (strikes < MEMO_STRIKES ? strikes : MEMO_STRIKES))) {
        if (begin_write(e)) {
            if (same_key(e, k))
                CG_STORE(e->misses, misses);
            end_write(e);
        }
        return;
    }
    uintptr_t addr[MEMO_WORDS], val[MEMO_WORDS];
    size_t w = strikes < MEMO_STRIKES ? cg_stack_read_set(pcs, n, first_prog, addr,
                                                          val, MEMO_WORDS)
                                      : 0;
    if (!begin_write(e))
        return;
    if (same_key(e, k)) {
        CG_STORE(e->strikes, strikes);
        CG_STORE(e->misses, (uint8_t)0);
        CG_STORE(e->state, (uint8_t)(w != 0 ? E_FILLED : E_GIVEN_UP));
        CG_STORE(e->nwords, (uint16_t)w);
        for (size_t i = 0; i < w; i++) {
            CG_STORE(e->addr[i], addr[i]);
            CG_STORE(e->val[i], val[i]);
        }
        CG_STORE(e->id, id);
    }
    end_write(e);
}
