/*
 * ops.c — the ops harness, single-threaded: each input is a sequence of
 * malloc-family calls over 256 slots, checked against the model of the API
 * contract (model.c), then every block is freed and cg_verify_heap() runs.
 * Built three times: ops-fast (fast mode), with -DFZ_DEBUG ops-debug (debug
 * mode: redzones, shadow records, quarantine), and with -DFZ_GUARD
 * ops-guard (guard mode: every block on pages of its own).  The mode is fixed at
 * start-up, so it comes from cg_default_options(), which chunkguard reads at
 * its first allocation — before any constructor could set the environment.
 * No report is expected: any report ends the process, which the fuzzer
 * records as a crash.  These binaries never create a thread.
 */
#include <stdint.h>

#include "chunkguard.h"
#include "fuzz.h"

#ifdef FZ_DEBUG
const char *cg_default_options(void)
{
    return "mode=debug:quarantine_mb=16:stack_depth=4:fill_alloc=0xbe:verify_interval=997";
}
#elif defined(FZ_GUARD)
const char *cg_default_options(void)
{
    return "mode=guard:guard_quarantine_mb=16:stack_depth=4:fill_alloc=0xbe:verify_interval=997";
}
#define FZ_DEBUG 1              /* the model's expectations are debug mode's */
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_no_libfuzzer_threads(argc, argv);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    static fz_model_t m;
#ifdef FZ_DEBUG
    const bool debug = true;
#else
    const bool debug = false;
#endif
    fz_assert_single_threaded();
    fz_model_init(&m, FZ_SLOTS, debug);
#ifdef FZ_GUARD
    /* Not in guard mode: its blocks end at their page's end, where glibc's
     * memset leaves pointers to a block's last 64 bytes in registers that
     * later frames spill, and the conservative scan keeps all three hidden
     * blocks often enough to fail the check's promise.  The leak scan of
     * guarded blocks is tests/suites/58-guard.sh's. */
    m.leak_checks = 0;
#else
    m.leak_checks = debug;
#endif
    fz_in_t in = { data, size, 0 };
    while (fz_model_step(&m, &in, NULL))
        ;
    fz_model_release_all(&m);
    fz_verify_heap("after an input");
    return 0;
}
