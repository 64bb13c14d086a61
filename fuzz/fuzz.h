/*
 * fuzz.h — what the fuzz harnesses share: the input reader, the model of
 * the malloc API contract that the ops, ops-mt and corrupt harnesses drive,
 * and the failure and heap-check helpers (docs/fuzzing.md).
 *
 * Every harness defines LLVMFuzzerTestOneInput and is linked with the
 * standard-named libchunkguard.a, so chunkguard is the malloc of the whole
 * process: the harness's, libFuzzer's and AFL's allocations included.
 * fuzz/driver.c supplies main() for AFL++ (persistent mode, shared-memory
 * test cases) and for plain replay of files and corpus directories.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- input ------------------------------------------------------------- */

typedef struct fz_in {
    const uint8_t *p;
    size_t n, i;                /* i: next byte; reads past n give 0      */
} fz_in_t;

static inline bool fz_more(const fz_in_t *in) { return in->i < in->n; }
static inline unsigned fz_u8(fz_in_t *in) { return in->i < in->n ? in->p[in->i++] : 0; }
static inline unsigned fz_u16(fz_in_t *in)
{
    unsigned lo = fz_u8(in);
    return lo | fz_u8(in) << 8;
}
static inline uint32_t fz_u32(fz_in_t *in)
{
    uint32_t lo = fz_u16(in);
    return lo | (uint32_t)fz_u16(in) << 16;
}

/* ---- the model --------------------------------------------------------- */

#define FZ_MAX_INPUT (64 * 1024) /* longer inputs are skipped: time, not depth */
#define FZ_SLOTS  256
#define FZ_WINDOW 128           /* bytes at each end of a block that carry a pattern */
#define FZ_FREED  32            /* recently freed blocks remembered (corrupt) */

/* How a slot's block was made: decides which sized free may release it. */
enum { FZ_HOW_MALLOC, FZ_HOW_CALLOC, FZ_HOW_REALLOC, FZ_HOW_MEMALIGN,
       FZ_HOW_POSIX, FZ_HOW_ALIGNED, FZ_HOW_VALLOC,
       FZ_HOW_NEW, FZ_HOW_NEW_ARRAY };   /* C++ operator new / new[]
                                          * (asked != 0: the align_val_t form) */

typedef struct fz_slot {
    unsigned char *p;           /* NULL: empty                            */
    size_t req;                 /* bytes requested                        */
    size_t span;                /* malloc_usable_size at allocation       */
    size_t align;               /* alignment the block must have          */
    size_t asked;               /* alignment asked for (free_aligned_sized) */
    uint32_t seed;              /* the pattern its windows hold           */
    uint8_t how;                /* FZ_HOW_*                               */
    bool tainted;               /* corrupt: a bug was injected into it    */
    bool served;                /* allocated from a signal handler while
                                 * the thread was inside chunkguard: one of
                                 * the re-entry path's own blocks (tune.c) */
} fz_slot_t;

typedef struct fz_freed {
    unsigned char *p;
    size_t req;
} fz_freed_t;

typedef struct fz_model fz_model_t;
/* corrupt: called for opcode FZ_OP_INJECT; reads its own arguments. */
typedef void (*fz_inject_fn)(fz_model_t *m, fz_in_t *in);

struct fz_model {
    fz_slot_t slot[FZ_SLOTS];
    unsigned nslots;            /* slots in use by this model (<= FZ_SLOTS) */
    bool debug;                 /* debug mode: usable size == request       */
    bool mallopt_ok;            /* may change process-wide parameters       */
    size_t max_size;            /* largest request drawn                    */
    size_t max_live;            /* cap on the bytes live at once            */
    size_t live;                /* bytes live now                           */
    fz_inject_fn inject;        /* corrupt, ops-fast, ops-debug, ops-guard  */
    bool inject_exact;          /* inject only for the op byte 0x0f itself;
                                 * the opcode's other bytes are a check, as
                                 * they were before ops-debug's bad calls
                                 * came (its regression inputs hold some) */
    void (*mismatch)(fz_model_t *m, unsigned i, unsigned how);
                                /* ops-debug, ops-guard: FZ_OP_CXX may ask
                                 * for slot i's C++ block to be released
                                 * by another family (how picks which) in
                                 * a child, which must report it        */
    fz_freed_t freed[FZ_FREED]; /* ring of blocks freed by this input       */
    unsigned nfreed;
    void (*on_release)(fz_model_t *m, fz_slot_t *s);  /* before a tainted slot goes */
    unsigned leak_checks;       /* FZ_OP_TUNE may run cg_leak_check (with a
                                 * report callback of its own) this many more
                                 * times in this input (ops-debug: 1; a scan
                                 * reads every module's data, libFuzzer's
                                 * large tables included)                   */
    unsigned subruns;           /* FZ_OP_TUNE may run the harness again as
                                 * a process of its own with other options
                                 * (subrun.c) this many more times in this
                                 * input (the ops harnesses: 1)           */
    bool cxx_ok;                /* an op byte of 0xf0 is FZ_OP_CXX (ops.c):
                                 * a block from a C++ operator new form,
                                 * released by the matching delete      */
    bool threads_ok;            /* FZ_OP_TUNE may start a short-lived thread
                                 * (ops-mt: never in a single-threaded one) */
    /* The ops a signal handler runs while its thread is inside chunkguard
     * (tune.c): in_handler set, the model counts the malloc-family calls
     * it makes (calls; ok_calls: those that succeeded, which chunkguard
     * must count as re-entrant) and the frees of ordinary blocks, which
     * wait for the next call from outside (deferred, the first of them
     * kept in deferred_p). */
    bool in_handler;
    void (*restore_callback)(void);  /* puts the harness's report callback
                                 * back after tune.c set its own (NULL:
                                 * the harness has none)                  */
    size_t mmap_floor;          /* the lowest M_MMAP_THRESHOLD set in this
                                 * input (smaller blocks are heap chunks) */
    unsigned calls, ok_calls, deferred;
    unsigned char *deferred_p[32];
};

/* Opcodes (the low nibble of an op byte). */
enum { FZ_OP_MALLOC, FZ_OP_CALLOC, FZ_OP_REALLOC, FZ_OP_REALLOCARRAY, FZ_OP_MEMALIGN,
       FZ_OP_POSIX_MEMALIGN, FZ_OP_ALIGNED_ALLOC, FZ_OP_FREE, FZ_OP_FREE_SIZED,
       FZ_OP_USABLE, FZ_OP_WRITE, FZ_OP_CHECK, FZ_OP_VALLOC, FZ_OP_TUNE, FZ_OP_HANDOFF,
       FZ_OP_INJECT, FZ_NOPS,
       FZ_OP_CXX = FZ_NOPS };   /* not drawn by the low nibble: see cxx_ok */

void fz_model_init(fz_model_t *m, unsigned nslots, bool debug);
/* Run one op from in (returns false at the end of the input).  handoff:
 * what FZ_OP_HANDOFF does (ops-mt); NULL makes it a free. */
bool fz_model_step(fz_model_t *m, fz_in_t *in, void (*handoff)(fz_model_t *m, unsigned slot));
/* Run op (FZ_OP_*) on slot i, its arguments from in. */
void fz_model_do(fz_model_t *m, fz_in_t *in, unsigned op, unsigned i,
                 void (*handoff)(fz_model_t *m, unsigned slot));
/* Free every live block, checking each first; restore the parameters a
 * FZ_OP_TUNE may have changed. */
void fz_model_release_all(fz_model_t *m);
void fz_model_restore_params(fz_model_t *m);
/* Check and free slot i (no-op when empty); the way of freeing from sel. */
void fz_model_free(fz_model_t *m, unsigned i, unsigned sel);
/* Check slot i's windows. */
void fz_model_check(const fz_model_t *m, unsigned i, const char *when);
/* Helpers of the ops, for tune.c: a request size from the size ranges
 * (*fails: one that must fail); room for n more live bytes; a successful
 * allocation of req bytes into slot i (checked, then filled from seed). */
size_t fz_draw_size(fz_in_t *in, size_t max, bool fail_ok, bool *fails);
bool fz_model_room(const fz_model_t *m, size_t n);
void fz_model_place(fz_model_t *m, unsigned i, void *p, size_t req, size_t align, int how,
                    uint32_t seed);
/* FZ_OP_TUNE (tune.c): change a process-wide parameter, or ask a
 * process-wide question and check the answer; i: the op's slot. */
void fz_op_tune(fz_model_t *m, fz_in_t *in, unsigned i);
/* The sigaction family against a model and the kernel (signals.c; from
 * FZ_OP_TUNE). */
void fz_op_signals(fz_in_t *in);
/* The harness's binary again, with options and a script from in, its
 * exit status and log checked (subrun.c; from FZ_OP_TUNE). */
void fz_op_subrun(fz_in_t *in);
/* Take over a block another model gave away (ops-mt). */
void fz_model_adopt(fz_model_t *m, unsigned i, const fz_slot_t *s);
/* Every live block of the models, pairwise: no two overlap. */
void fz_models_no_overlap(fz_model_t *const *ms, size_t n);

/* The C++ replaceable allocation functions chunkguard exports (the one
 * list: src/base/cxxops.def). */
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) ret name params;
#include "cxxops.def"
#undef CG_CXX_OP

/* ---- helpers ----------------------------------------------------------- */

/* Print "fuzz: <message>" and abort: the fuzzer records a crash.  When
 * fz_fail_hook is set (corrupt's forked children) it gets the message
 * first. */
_Noreturn void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void (*fz_fail_hook)(const char *msg, size_t len);

/* cg_verify_heap() when it is linked in; fails on any problem. */
void fz_verify_heap(const char *when);

/* The process is still single-threaded (fails if a thread ever started). */
void fz_assert_single_threaded(void);

/* A forked child for one bad operation: 0 in the child (*fd: the pipe's
 * write end; SIGABRT and the like at their default action, a 20 s alarm,
 * the coverage counters written at an abort), the child's pid in the
 * parent (*fd: the read end).  fz_child_end reads what the child wrote
 * into msg (cap bytes, NUL-terminated), reaps it and returns its wait
 * status. */
pid_t fz_fork_child(int *fd);
int fz_child_end(pid_t pid, int fd, char *msg, size_t cap);
/* fz_child_end, then the first "report KIND ADDRESS" line of msg parsed
 * into kind (cap 32) and *addr ("" and NULL without one). */
int fz_child_report(pid_t pid, int fd, char *msg, size_t cap, char kind[32], void **addr);

/* Can a be read (without faulting: a live block's pages, or any other
 * mapping)? */
bool fz_accessible(const void *a);

/* The --coverage build (make fuzz-cov): a forked child that ends by
 * abort() writes its counters first (fz_coverage_at_abort), or writes
 * them now, before an end no code of ours sees (fz_coverage_dump).  Both
 * do nothing in the other builds. */
void fz_coverage_at_abort(void);
void fz_coverage_dump(void);
/* A forked child's end: chunkguard's _exit (in debug and guard mode it
 * checks the blocks the child freed first), whose exit writes the
 * counters in the --coverage build. */
_Noreturn void fz_child_exit(int code);

/* libFuzzer: append -rss_limit_mb=0 to its arguments, so that it starts
 * no RSS-watching thread (a single-threaded binary must stay one). */
void fz_no_libfuzzer_threads(int *argc, char ***argv);
/* libFuzzer: -handle_segv=0 -handle_bus=0 first, so that chunkguard's
 * SIGSEGV handler, which makes the fault reports, stays (faults, corrupt;
 * they define __ubsan_default_options for the sanitizer runtime too). */
void fz_no_libfuzzer_segv(int *argc, char ***argv);

#endif /* FUZZ_H */
