/*
 * stack.h — call-stack capture for the instrumented mode: the return
 * addresses of the calling thread, walked by libunwind's unw_backtrace.
 *
 * A capture never calls malloc itself (but see cg_stack_capture: glibc
 * allocates a dlopen'd libunwind's thread-local block at a thread's first
 * capture), never reads or writes a file descriptor of
 * the program, takes no lock that the dynamic loader's lock can wait on,
 * and leaves errno as it found it.  libunwind 1.6 needs configuring for all
 * four; stack.c says how and why.  Capture before taking any chunkguard
 * lock: a capture may take the loader's lock (dl_iterate_phdr).
 *
 * Cost: depth 1 walks nothing; a capture through return addresses the
 * thread has unwound before costs a few nanoseconds a frame, and a return
 * address a thread has not unwound before is looked up and its unwind
 * info parsed once per thread, which makes a new thread's first deep
 * capture the expensive one (figures: docs/performance.md, "Stack
 * captures").
 */
#ifndef CG_STACK_H
#define CG_STACK_H

#include "platform.h"
#include "thread.h"

/* The deepest capture, in frames (the stack_depth option's maximum). */
#define CG_STACK_MAX 64
/* The most innermost frames a capture can be asked to skip. */
#define CG_STACK_MAX_SKIP 16

/* How captures are taken; see cg_stack_mode(). */
typedef enum cg_stack_mode {
    CG_STACK_UNPRIMED = 0,    /* cg_stack_prime has not finished yet          */
    CG_STACK_LIBUNWIND = 1,   /* full stacks: libunwind, made safe at priming */
    CG_STACK_CALLER_ONLY = 2  /* libunwind could not be made safe (not the
                               * build we know): frame 0 only, never libunwind */
} cg_stack_mode_t;

/*
 * cg_stack_capture - the calling thread's return addresses, innermost first.
 * @pcs:  out: up to @max return addresses
 * @max:  frames wanted, 0..CG_STACK_MAX (larger is clamped)
 * @skip: innermost frames to drop beyond cg_stack_capture itself,
 *        0..CG_STACK_MAX_SKIP (larger is clamped).  With skip 0, pcs[0] is
 *        cg_stack_capture's own return address (a pc in its caller), pcs[1]
 *        the caller's return address, and so on.
 * Returns the number of frames stored (0..max); fewer than asked when the
 * stack is shallower, when a frame has no unwind information, or when the
 * unwinder is unavailable (then only pcs[0], and only with skip 0).
 *
 * max == 1 with skip == 0 is __builtin_return_address and costs nothing.
 * Otherwise the first call primes the unwinder if cg_stack_prime has not.
 * Calls no malloc itself, with one exception: libunwind is loaded with
 * dlopen (stack.c), so a thread's first capture makes glibc allocate
 * libunwind's thread-local block with malloc; that malloc's own capture is
 * a re-entered one.  Preserves errno; thread-safe; a capture re-entered on
 * the same thread (a signal handler, or malloc called from inside the
 * unwinder) returns at most frame 0 instead of unwinding again.  Not
 * async-signal-safe in general (the loader lock), as malloc is not.
 */
size_t cg_stack_capture(uintptr_t *pcs, size_t max, size_t skip) CG_HIDDEN CG_NOINLINE;

/*
 * cg_stack_capture_signal - the stack of an instruction that faulted,
 * unwound from the signal's context, not from the handler.
 * @ucontext: the handler's third argument (ucontext_t *)
 * @pc:       the faulting instruction's address (from ucontext)
 * @pcs, @max: out: pcs[0] = pc, then the return addresses of its callers,
 *            up to max frames in all (0..CG_STACK_MAX)
 * Returns the number of frames (pc alone when the unwinder is not primed
 * or a capture is already running on this thread).  The walk reads the
 * program's stack only through libunwind's validated reads (set up by
 * cg_stack_prime), so a smashed stack ends it early instead of faulting
 * again.  Preserves errno; never calls malloc.
 */
size_t cg_stack_capture_signal(void *ucontext, uintptr_t pc, uintptr_t *pcs, size_t max)
    CG_HIDDEN CG_NOINLINE;

/*
 * cg_stack_prime - load libunwind (dlopen "libunwind.so.8", RTLD_LOCAL;
 * without it captures give the call site only), make it safe and warm it
 * up: redirect its memory
 * validation away from file descriptors, turn its global register-state
 * cache off, initialise it, and do one full capture, so that later captures
 * on this thread allocate nothing and initialise nothing.  (A thread's
 * first capture still maps its own frame cache with mmap, never malloc.)
 * Call once at start-up, before the program can have closed descriptors
 * and before anything else uses libunwind in the process.  Idempotent and
 * thread-safe (a concurrent second caller returns at once; its captures
 * give frame 0 only until priming is done).  Preserves errno.  Loading
 * libunwind allocates (dlopen): call it once the process is started, not
 * from inside the dynamic loader (debug mode's start primes it, from the
 * library's constructor: entry/init.c).
 */
void cg_stack_prime(void) CG_HIDDEN;

/*
 * cg_stack_read_set - the stack words an unwind of the calling thread
 * reads to find the frames of a capture, for a stack memo (stackmemo.h).
 * @pcs:  the n frames a capture gave (innermost first); the walk starts at
 *        the first frame above the caller whose pc is pcs[0] and must find
 *        the same frames, or nothing is returned
 * @first_prog: index in pcs of the program's first frame (frames before it
 *        are chunkguard's own); 0 when pcs start in the program
 * @addr, @val: out: each word's address and the value it holds now: the
 *        return-address slot of each of the n frames, and, when a program
 *        frame finds its CFA through %rbp (CFA == %rbp + 16), for every
 *        program frame the slot the step into it restored %rbp from (when
 *        in memory)
 * @cap:  room in addr and val
 * Returns the number of words, or 0 (libunwind not primed or too old, a
 * capture already running on this thread, a walk that disagrees with pcs,
 * or more than cap words).  Walks with unw_step, which evaluates DWARF
 * for every frame: tens of microseconds, for memo fills only.  Preserves
 * errno; never calls malloc; call before taking any chunkguard lock.
 */
size_t cg_stack_read_set(const uintptr_t *pcs, size_t n, size_t first_prog, uintptr_t *addr,
                         uintptr_t *val, size_t cap) CG_HIDDEN CG_NOINLINE;

/* Where the program's frame starts in a capture made inside an API call:
 * the index of the call's return address (caller, cg_call_t's) in
 * pcs[0..n), or n when it is not there (or caller is 0). */
CG_INLINE size_t cg_stack_caller_index(const uintptr_t *pcs, size_t n, uintptr_t caller)
{
    size_t k = 0;
    while (k < n && pcs[k] != caller)
        k++;
    return k;
}

/* The address of libunwind's unw_backtrace once priming loaded it (dlopen,
 * RTLD_LOCAL), else 0: names libunwind's module, e.g. for the leak scan. */
uintptr_t cg_stack_unwinder_code(void) CG_HIDDEN;

/* In the child of a fork of a multi-threaded process (the loader's lock,
 * which libunwind's module walk and the dlopen that loads it take, may
 * have been held by a thread that does not exist in the child): a child
 * not primed never primes (fast mode: its reports give the call site
 * only, debug.c report_stack), and with unwinding set (a mode that
 * unwinds at every call) captures give the call site only from then on.
 * Called by the fork handler, the child single-threaded. */
void cg_stack_after_fork_child(bool unwinding) CG_HIDDEN;

/* How captures are taken now (CG_STACK_*).  Thread-safe. */
cg_stack_mode_t cg_stack_mode(void) CG_HIDDEN;

/*
 * cg_stack_caller_of - the state of the frame that called fn, where the
 * calling thread's stack runs through fn now (the leak check at exit: the
 * frame that called exit()).
 * @fn:    the entry address of a function (as its unwind information says)
 * @sp:    out: the caller's stack pointer at the call's return (fn's CFA):
 *         everything below it belongs to frames that have not returned to
 *         the caller, and is dead to it
 * @regs:  out: the caller's callee-saved registers as they were at the
 *         call (restored by the unwinder), at most 8
 * @nregs: out: how many regs were stored
 * False when the unwinder is not available, or no frame within 64 of this
 * one is in fn.  Never calls malloc; preserves errno; not
 * async-signal-safe (the loader lock, as cg_stack_capture).
 */
bool cg_stack_caller_of(uintptr_t fn, uintptr_t *sp, uintptr_t *regs, size_t *nregs) CG_HIDDEN;

#endif /* CG_STACK_H */
