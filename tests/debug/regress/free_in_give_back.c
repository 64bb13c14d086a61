/* A free of a block while another thread's free of it is between the
 * unbinding of the block's record and the core's free of its chunk (debug
 * mode, quarantine_mb=0: the winner gives the chunk back at once).  Runs
 * on the test build (CG_TEST_HOOKS=1): the hook at CG_HOOK_DEBUG_GIVE_BACK
 * (base/testhooks.h, point 2) holds the first free there until the second
 * thread's free has been made (or 2 s have passed), so the window that
 * 55-debug's racing frees hit about once in 2400 runs is hit every time.
 * The second free must be reported as a double free; before the fix the
 * core, finding the chunk in use and no record, called the pointer
 * 16 bytes inside a block (invalid-free).
 * late: the second free's lookup finds the record still bound, and its
 * hook at CG_HOOK_DEBUG_FOUND (point 3) holds it until the first free has
 * ended (the record unbound under it); it must look again and find the
 * chunk free (the core's double free), not take the unbound record's
 * start for the block's (invalid-free "the block it points into was
 * freed", before the fix).
 * usage: free_in_give_back SIZE [free|realloc] [late] */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *volatile shared;
static int in_window;           /* the first free is in the window */
static int armed;               /* the hook waits only for the block's free */
static int use_realloc;
static int late;                /* hold the second free after its lookup */
static int found;               /* the second free is at point 3 */
static int first_done;          /* the first free has returned */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep in 1 ms steps until *flag is set or s seconds have passed. */
static void wait_for(int *flag, double s)
{
    struct timespec ms = { 0, 1000000 };
    for (double end = now() + s; !__atomic_load_n(flag, __ATOMIC_ACQUIRE) && now() < end;)
        nanosleep(&ms, NULL);
}

static void hook(int point, void *arg)
{
    (void)arg;
    if (point == 3 && late && __atomic_load_n(&in_window, __ATOMIC_ACQUIRE) &&
        !__atomic_exchange_n(&found, 1, __ATOMIC_ACQ_REL)) {
        wait_for(&first_done, 2);
        return;
    }
    if (point != 2 || !__atomic_exchange_n(&armed, 0, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&in_window, 1, __ATOMIC_RELEASE);
    /* the second free's report ends the process (not late) or it waits
     * at point 3 (late); deadlines, never a hang */
    static int never;
    wait_for(late ? &found : &never, 2);
}

static void *second(void *a)
{
    (void)a;
    for (double end = now() + 10; !__atomic_load_n(&in_window, __ATOMIC_ACQUIRE);)
        if (now() > end) {
            fprintf(stderr, "free_in_give_back: the first free never reached the hook\n");
            exit(3);
        }
    if (use_realloc) {
        void *q = realloc(shared, 200);   /* bug: realloc of a block being freed */
        fprintf(stderr, "free_in_give_back: realloc gave %p\n", q);
    } else
        free(shared);                 /* bug: the same block freed twice */
    return NULL;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 100;
    use_realloc = argc > 2 && strcmp(argv[2], "realloc") == 0;
    late = argc > 3 && strcmp(argv[3], "late") == 0;
    void (*set_hook)(void (*)(int, void *)) =
        (void (*)(void (*)(int, void *)))dlsym(RTLD_DEFAULT, "cg_test_set_hook");
    if (set_hook == NULL) {
        fprintf(stderr, "free_in_give_back: cg_test_set_hook missing: not a test build\n");
        return 2;
    }
    void *before = malloc(n);
    shared = malloc(n);
    void *after = malloc(n);     /* the block is not next to the top chunk */
    set_hook(hook);
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
    free(shared);
    __atomic_store_n(&first_done, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    free(before);
    free(after);
    fprintf(stderr, "free_in_give_back: no report\n");
    return 0;
}
