/*
 * ops_mt.c — the ops harness with threads.  FZ_THREADS worker threads are
 * started once, by the first input (after AFL's forkserver has forked, so
 * they exist in the process that runs the inputs), and then run every
 * input in lock-step phases: the input is cut into phases, each phase into
 * one slice per worker; all workers run their slice at once (each over its
 * own 64 slots, checked by its own model), then wait at a barrier.  A
 * FZ_OP_HANDOFF passes a live block to the next worker, which takes it
 * over in the next phase and later frees or reallocates it: frees from a
 * thread other than the one that allocated, into another arena or tcache.
 * Between phases the main thread checks that no two workers' blocks
 * overlap; at the end every worker frees all it holds, and the main
 * thread runs cg_verify_heap().  Fast mode.
 */
#include <pthread.h>
#include <string.h>

#include "fuzz.h"

#define FZ_THREADS 3
#define MT_SLOTS   (FZ_SLOTS / 4)

typedef struct worker {
    pthread_t thread;
    fz_model_t model;
    fz_in_t slice;              /* this phase's bytes                      */
    /* blocks handed over by the previous worker: written in one phase,
     * taken over in the next (two boxes, by phase parity: no races) */
    fz_slot_t inbox[2][MT_SLOTS];
    unsigned ninbox[2];
    unsigned id;
} worker_t;

static worker_t workers[FZ_THREADS];
static pthread_barrier_t start, done;
static int quit_phase;         /* 1: release everything (set between phases) */
static unsigned phase;          /* set by the main thread between phases */

static void handoff(fz_model_t *m, unsigned slot)
{
    worker_t *w = (worker_t *)((char *)m - offsetof(worker_t, model));
    worker_t *next = &workers[(w->id + 1) % FZ_THREADS];
    unsigned box = phase & 1;
    if (next->ninbox[box] == MT_SLOTS) {
        fz_model_free(m, slot, 0);
        return;
    }
    next->inbox[box][next->ninbox[box]++] = m->slot[slot];
    m->live -= m->slot[slot].span;
    m->slot[slot].p = NULL;
}

static void *work(void *arg)
{
    worker_t *w = arg;
    for (;;) {
        pthread_barrier_wait(&start);
        unsigned box = (phase + 1) & 1;            /* the previous phase's */
        for (unsigned k = 0; k < w->ninbox[box]; k++)
            fz_model_adopt(&w->model, (w->id * 7 + k) % MT_SLOTS, &w->inbox[box][k]);
        w->ninbox[box] = 0;
        if (quit_phase)
            fz_model_release_all(&w->model);
        else
            while (fz_model_step(&w->model, &w->slice, handoff))
                ;
        pthread_barrier_wait(&done);
    }
    return NULL;
}

static void start_workers(void)
{
    pthread_barrier_init(&start, NULL, FZ_THREADS + 1);
    pthread_barrier_init(&done, NULL, FZ_THREADS + 1);
    for (unsigned t = 0; t < FZ_THREADS; t++) {
        workers[t].id = t;
        fz_model_init(&workers[t].model, MT_SLOTS, false);
        workers[t].model.mallopt_ok = false;      /* process-wide: not mid-phase */
        workers[t].model.max_live = 8u << 20;
        workers[t].model.threads_ok = true;       /* short-lived threads (tune.c) */
        if (pthread_create(&workers[t].thread, NULL, work, &workers[t]) != 0)
            fz_fail("pthread_create failed");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    static bool started;
    if (!started) {
        start_workers();
        started = true;
    }
    fz_model_t *models[FZ_THREADS];
    for (unsigned t = 0; t < FZ_THREADS; t++)
        models[t] = &workers[t].model;
    fz_in_t in = { data, size, 0 };
    /* each phase: one length byte per worker, then the slices */
    while (fz_more(&in)) {
        size_t len[FZ_THREADS];
        for (unsigned t = 0; t < FZ_THREADS; t++)
            len[t] = fz_u8(&in) % 64;
        for (unsigned t = 0; t < FZ_THREADS; t++) {
            size_t n = in.n - in.i < len[t] ? in.n - in.i : len[t];
            workers[t].slice = (fz_in_t){ in.p + in.i, n, 0 };
            in.i += n;
        }
        quit_phase = 0;
        phase++;
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
        fz_models_no_overlap(models, FZ_THREADS);
    }
    /* two closing phases: the inboxes are adopted, then all is freed */
    for (int k = 0; k < 2; k++) {
        quit_phase = 1;
        phase++;
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
    }
    fz_verify_heap("after an input");
    return 0;
}
