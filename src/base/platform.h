/*
 * platform.h — the only place chunkguard talks to the OS and the compiler's
 * intrinsics: mmap and friends, futex calls, thread identity, raw writes
 * (the lock built on them is lock.h).
 * Nothing here allocates.
 */
#ifndef CG_PLATFORM_H
#define CG_PLATFORM_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CG_LIKELY(x)   __builtin_expect(!!(x), 1)
#define CG_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CG_INLINE      static inline __attribute__((always_inline))
#define CG_NOINLINE    __attribute__((noinline))
#define CG_COLD        __attribute__((cold, noinline))
#define CG_HIDDEN      __attribute__((visibility("hidden")))
/* The shared library keeps the objects that only reports and debug mode run
 * (Makefile COLD_OBJS) in a segment of their own, so a fast-mode process
 * never maps their pages (see the Makefile and docs/performance.md).  The
 * few functions of those objects that run in every process (constructors,
 * destructors, the start-up hook) carry CG_STARTUP to stay with the code
 * every process touches. */
#define CG_STARTUP     __attribute__((cold, noinline, section(".text.cg_startup")))
/* The code every fast-mode process runs: start-up and exit, malloc, free,
 * calloc and realloc with their slow paths down to the arena, the heap and
 * big blocks.  It alone stays in .text; the rest of the hot objects' code
 * (options parser, memalign, threads, stats, ...) goes to .cg_warm, a
 * segment of its own (Makefile, layout.ld), so a malloc/free program maps
 * ~60 kB of chunkguard's code instead of all ~120 (fault-around maps every
 * page of a touched 64 kB window).  A function that such a program runs
 * without this mark maps a window of warm code: 50-fastpath's
 * fastpath-warm-pages-exit notices (docs/performance.md, rss18).  The mark
 * only places the function; its code is the same. */
#define CG_HOT_TEXT    __attribute__((section(".text.cg_hot")))
/* The same for malloc, free, calloc and realloc themselves, by gcc's own
 * mark (.text.hot, which stays in .text): a section attribute turns off
 * gcc's hot/cold splitting of a function, and without it malloc's inline
 * tcache hit read 2 instructions more (the sampler's count-down decremented
 * through a register: 211.1 -> 211.7 Ir/op on lifo-fixed). */
#define CG_HOT_ENTRY   __attribute__((hot))
/* The fork handlers (entry/init.c) and the lock and reset functions they
 * call, together in one section (.cg_fork, Makefile's layout.ld): a forked
 * child's code pages are not copied, each 64 KiB window of code it runs is
 * a page fault of its own, and these run in every child (docs/performance.md,
 * "Mappings and fork cost of debug mode"). */
#define CG_FORK_PATH   __attribute__((noinline, section(".text.cg_fork")))
/* A word a fork child writes (or reads) in its fork handler: in .data,
 * whose one page also holds the singleton locks the child resets and the
 * handlers' own state, so the child copies that page and no other of
 * ours for it (docs/performance.md, "fork19"). */
#define CG_FORK_DATA   __attribute__((section(".data")))
/* Large zero-initialised arrays (the heap map, report buffers, tables only
 * debug mode fills): placed in .lbss, which the linker puts after .bss, so
 * the small variables every process touches share a few pages instead of
 * being spread between megabytes of untouched arrays. */
#define CG_BIG_BSS     __attribute__((section(".lbss")))
/* The bytes a file path may take, its NUL included: Linux's PATH_MAX.
 * Every buffer that holds a path a report shows (a module, a source file,
 * the executable) is at least this big: a path is shown whole, never cut
 * (issue 14; tests/suites/26-symbolize.sh, sym-long-path-*). */
#define CG_PATH_MAX    4096
#define CG_TLS         __thread __attribute__((tls_model("initial-exec")))
#define CG_RET_ADDR    ((uintptr_t)__builtin_return_address(0))

/* glibc keeps this true until the first pthread_create (glibc 2.32+). */
extern char __libc_single_threaded;
#define CG_SINGLE_THREAD_P (__libc_single_threaded != 0)

/* Pages.  x86_64 Linux pages are 4 KiB; the value is read at init and the
 * constant below is only the minimum we rely on. */
extern size_t cg_pagesize CG_HIDDEN;
#define CG_PAGE_ROUND(n) (((n) + cg_pagesize - 1) & ~(cg_pagesize - 1))

/* mmap wrappers: return NULL on failure (never MAP_FAILED).  cg_os_map
 * maps read-write memory; cg_os_map_aligned maps read-write memory at a
 * multiple of align without reserving swap for it (MAP_NORESERVE: pages
 * cost nothing until touched).  None of these touches errno. */
void *cg_os_map(size_t len) CG_HIDDEN;
void *cg_os_map_aligned(size_t len, size_t align) CG_HIDDEN;
void  cg_os_unmap(void *p, size_t len) CG_HIDDEN;
void  cg_os_decommit(void *p, size_t len) CG_HIDDEN; /* give pages back, keep RW */
void *cg_os_remap(void *p, size_t oldlen, size_t newlen) CG_HIDDEN; /* mremap, may move */
/* Address space without memory: len bytes (a multiple of the page size)
 * mapped inaccessible (PROT_NONE, MAP_NORESERVE: neither memory nor commit
 * charge until a part is opened with cg_os_protect), or NULL. */
void *cg_os_reserve(size_t len) CG_HIDDEN;
/* Make [p, p + len) (pages) inaccessible and give its memory back, in one
 * system call (a fixed PROT_NONE mapping over it: the old pages are
 * dropped, the range reads as zeros once opened again); false on failure
 * (the kernel's mapping count limit). */
bool  cg_os_seal(void *p, size_t len) CG_HIDDEN;
/* Ask for transparent huge pages on [p, p + len) (page multiples; madvise
 * MADV_HUGEPAGE): a page fault in a 2 MiB-aligned range that lies whole in
 * one mapping of this kind then gets a 2 MiB page, when the kernel has one
 * to give (THP "always" or "madvise" in
 * /sys/kernel/mm/transparent_hugepage/enabled).  A hint: false when the
 * kernel has no THP (EINVAL), and nothing changed.  A fixed mapping made
 * over part of the range later (cg_os_seal) loses the hint.  errno is
 * kept. */
bool  cg_os_huge_pages(void *p, size_t len) CG_HIDDEN;
/* Make [p, p + len) (2 MiB-aligned, read-write, one mapping) huge pages
 * now (madvise MADV_COLLAPSE, Linux 6.1): the kernel copies the present
 * pages into new huge pages; pages never touched become resident zeros.
 * False when the kernel cannot (older kernel, no huge page free); the
 * memory is unchanged either way.  errno is kept. */
bool  cg_os_collapse(void *p, size_t len) CG_HIDDEN;
/* Does the kernel give transparent huge pages to ranges that ask
 * (/sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise")? */
bool  cg_os_thp_allowed(void) CG_HIDDEN;

/*
 * Reserved address space, committed piece by piece (the heaps, heap.c).
 * cg_os_reserve_aligned - len bytes at a multiple of align (a power of
 *     two, at least the page size), inaccessible (PROT_NONE, no swap
 *     reserved); NULL when the address space is exhausted.
 * cg_os_commit - make [p, p + len) read-write (mprotect); p and len page
 *     multiples.  False when the kernel refuses (ENOMEM: the mapping count
 *     limit, vm.max_map_count, or an overcommit limit).
 * Giving pages back and protecting them again is cg_os_seal.  None of
 * these touches errno.
 */
void *cg_os_reserve_aligned(size_t len, size_t align) CG_HIDDEN;
bool  cg_os_commit(void *p, size_t len) CG_HIDDEN;

/*
 * Guarded mappings: chunkguard's out-of-band structures (shadow records,
 * the stack depot and memo, the big-block registry, scratch tables) sit
 * between two inaccessible pages, so that no overflow of a block mapped
 * beside them, and no linear wild write, reaches them unnoticed.
 * cg_os_map_guarded - len bytes (rounded up to pages) of read-write
 *     memory with a PROT_NONE page before and after it (no swap reserved:
 *     pages cost nothing until touched); NULL when out of address space or
 *     mappings.  Costs two mappings of the process's vm.max_map_count
 *     (the guards of neighbouring guarded mappings merge).
 * cg_os_unmap_guarded - unmap such a mapping, guards included (p and len
 *     as given to and returned by cg_os_map_guarded).
 * cg_os_map_guard_page - one PROT_NONE page at p (page aligned), only if
 *     nothing is mapped there (MAP_FIXED_NOREPLACE): below a heap, whose
 *     metadata starts at its base.  False when the page is taken.
 * cg_os_unmap_guard_page - unmap it.
 * cg_os_guard_hit - is addr on a guard page of one of these (the first or
 *     last page of a live guarded range)?  Then *lo and *hi are the range,
 *     guards included.  Lock-free and async-signal-safe: for the fault
 *     handler.  A guarded mapping made while 8192 are live is not known
 *     to it (its guards still fault).
 * None of these touches errno.
 */
/*
 * The metadata body: one guarded mapping shared by chunkguard's lasting
 * out-of-band structures (shadow page map, record slabs and big-block
 * table, stack depot and memo, thread records, guard slot ring).
 * cg_os_map_meta - len bytes (rounded up to pages, page aligned) of
 *     read-write memory, untouched (pages cost nothing until used), inside
 *     the body: a guard page below the lowest piece and one above the
 *     highest, none between pieces (docs/proposals.md says why that still
 *     keeps every structure away from a heap or a big block).  When the
 *     body is full or cannot be made, a cg_os_map_guarded mapping.  NULL
 *     when neither can be had.  Thread-safe, lock-free, errno kept.
 * cg_os_map_meta_aligned - the same, at an address that is a multiple of
 *     align (a power of two; a page or less: cg_os_map_meta), for memory
 *     to be collapsed into huge pages (align 2 MiB): the address space
 *     skipped below it is opened too, unused, so the body stays one
 *     mapping.  NULL when the body has no room (no mapping of its own:
 *     the caller falls back to cg_os_map_meta).
 * cg_os_unmap_meta - give back (p, len) of cg_os_map_meta: a piece of the
 *     body is made inaccessible and its memory returned (its address space
 *     is not reused); a mapping of its own is unmapped.
 * cg_os_meta_body - the body's read-write part [*lo, *hi) so far; false
 *     when there is none (tests: tests/edges).
 */
/* Test builds only (CG_TEST_HOOKS): len bytes read-write at exactly p
 * (nothing may be mapped there), or NULL; a seeded layout bug's page,
 * never merged with a neighbouring mapping. */
void *cg_os_test_map_at(void *p, size_t len) CG_HIDDEN;
void *cg_os_map_meta(size_t len) CG_HIDDEN;
void *cg_os_map_meta_aligned(size_t len, size_t align) CG_HIDDEN;
void  cg_os_unmap_meta(void *p, size_t len) CG_HIDDEN;
bool  cg_os_meta_body(uintptr_t *lo, uintptr_t *hi) CG_HIDDEN;
void *cg_os_map_guarded(size_t len) CG_HIDDEN;
void  cg_os_unmap_guarded(void *p, size_t len) CG_HIDDEN;
bool  cg_os_map_guard_page(void *p) CG_HIDDEN;
void  cg_os_unmap_guard_page(void *p) CG_HIDDEN;
bool  cg_os_guard_hit(const void *addr, uintptr_t *lo, uintptr_t *hi) CG_HIDDEN;
size_t cg_os_ncpus(void) CG_HIDDEN;                  /* CPUs we may run on, >= 1 */
/* A small file (/proc) read whole into buf (at most cap - 1 bytes, then a
 * NUL), raw system calls: no malloc, errno untouched.  Bytes read, 0 when
 * it cannot be read. */
size_t cg_os_read_small(const char *path, char *buf, size_t cap) CG_HIDDEN;
size_t cg_os_nthreads(void) CG_HIDDEN;               /* threads in the process now
                                                      * (/proc), 0 when unknown */
/* The kernel's cap on a process's mappings (vm.max_map_count, from
 * /proc/sys/vm/max_map_count), or its default, 65530, when that cannot be
 * read.  No malloc, errno untouched. */
size_t cg_os_max_map_count(void) CG_HIDDEN;
/*
 * cg_os_write_all - write len bytes of buf to fd, raw system calls (no
 * malloc, errno untouched, async-signal-safe), as far as it can: a closed
 * or broken fd ends it quietly, and so does a pipe, socket, FIFO or
 * terminal that takes no byte for CG_OS_WRITE_STALL_MS (a full pipe
 * nobody reads: the report then goes on to its end, abort or exitcode,
 * instead of hanging in write(2) as glibc's would).  The wait restarts
 * at every byte taken: a slow reader gets everything.  After one such
 * stall on a pipe, the next write to it (by any fd) does not wait until
 * bytes move again.  Not for several threads at once on one fd (reports are
 * serialised by the report lock).
 */
#define CG_OS_WRITE_STALL_MS 3000
void  cg_os_write_all(int fd, const char *buf, size_t len) CG_HIDDEN;
uint64_t cg_os_random64(void) CG_HIDDEN;
/* futex wait on *addr while it holds val, at most timeout_ns (< 0: no
 * limit); returns 0 or -errno (-ETIMEDOUT, -EAGAIN, -EINTR).  And wake one
 * waiter.  Private futexes. */
long  cg_os_futex_wait(uint32_t *addr, uint32_t val, int64_t timeout_ns) CG_HIDDEN;
void  cg_os_futex_wake(uint32_t *addr) CG_HIDDEN;
void  cg_os_futex_wake_all(uint32_t *addr) CG_HIDDEN;  /* every waiter */
uint32_t cg_os_gettid(void) CG_HIDDEN;
uint64_t cg_os_now_ns(void) CG_HIDDEN;               /* CLOCK_MONOTONIC */
int   cg_os_getpid(void) CG_HIDDEN;
/* The process's environment and auxiliary vector, read at init: getenv
 * (NULL when unset) and getauxval (0 when absent). */
const char *cg_os_getenv(const char *name) CG_HIDDEN;
unsigned long cg_os_getauxval(unsigned long type) CG_HIDDEN;
/* End the process: abort() raises SIGABRT (the program's handler runs,
 * then the default action), _exit(status) runs no handler and no atexit
 * function.  Neither returns. */
_Noreturn void cg_os_abort(void) CG_HIDDEN;
_Noreturn void cg_os_exit(int status) CG_HIDDEN;
void  cg_os_yield(void) CG_HIDDEN;                   /* sched_yield */
void  cg_os_sleep_ms(unsigned ms) CG_HIDDEN;         /* nanosleep, ms milliseconds */

/* Files, with raw system calls: no malloc, no stdio, errno untouched
 * (but for cg_os_write_file's failure to open).
 * cg_os_write_file writes len bytes to the file at path (created 0644 if
 * need be), appended to or truncated first; true when all was written
 * (a FIFO is written as cg_os_write_all writes, with its deadline; one
 * with no reader is refused at once, ENXIO); false with errno set to the
 * open's error when the file could not be opened (errno untouched on a
 * short write).
 * cg_os_errno_name gives an errno value's name ("ENOENT"), "an error"
 * for one it does not list; async-signal-safe.
 * cg_os_readlink puts the link's target in buf (at most cap - 1 bytes,
 * then a NUL) and returns its length, 0 when unknown. */
bool  cg_os_write_file(const char *path, const char *buf, size_t len, bool append) CG_HIDDEN;
/* cg_os_start_file writes buf[0, len) to the regular file at path with
 * one write(): made (0644) when nothing is there, appended to when one
 * is (a program this process exec'd starts on its predecessor's file); a
 * FIFO, device or other is left alone, unwritten.  True when all was
 * written; no malloc, async-signal-safe (a fork child); errno is
 * clobbered (the caller keeps it). */
bool  cg_os_start_file(const char *path, const char *buf, size_t len) CG_HIDDEN;
const char *cg_os_errno_name(int e) CG_HIDDEN;
/* The program's executable, /proc/self/exe's target (the program chunkguard
 * was loaded into, never ld.so or libc), read at init (entry/init.c) and
 * kept: NUL-terminated, at most CG_OS_EXE_MAX - 1 bytes, "" when /proc
 * cannot tell.  No malloc; a race of two first calls reads it twice, the
 * same.  A thread's report names its process by it (JSON "exe"), since
 * the outermost frame of a thread's stack is libc's (clone3). */
#define CG_OS_EXE_MAX CG_PATH_MAX
const char *cg_os_exe(void) CG_HIDDEN;
size_t cg_os_readlink(const char *path, char *buf, size_t cap) CG_HIDDEN;
/* A file to map for reading (the symbolizer's ELF images): its identity,
 * so that a cache can tell a rebuilt file from the one it mapped. */
typedef struct cg_os_file_id {
    uint64_t dev, ino;
    size_t size;                /* bytes, > 0                               */
    int64_t mtime_sec, mtime_nsec;
} cg_os_file_id_t;
/* A descriptor of the regular, non-empty file at path, opened read-only,
 * with its identity in *id; -1 for anything else.  cg_os_map_fd maps len
 * bytes of it read-only (NULL on failure); the descriptor can be closed
 * at once after. */
int   cg_os_open_file(const char *path, cg_os_file_id_t *id) CG_HIDDEN;
const void *cg_os_map_fd(int fd, size_t len) CG_HIDDEN;
void  cg_os_close(int fd) CG_HIDDEN;

/*
 * A helper program to talk to (the out-of-process symbolizer,
 * report/symbolize.c), run with raw system calls: no malloc, no stdio, no
 * fork handlers, errno untouched, async-signal-safe (a report in a fault
 * handler, a fork child, at exit, with the heap corrupted).
 *
 * cg_os_find_program - the first directory of $PATH (or /usr/bin:/bin
 *     when unset) holding an executable regular file called name: its
 *     path in buf (cap bytes, NUL-terminated); false when none.
 * cg_os_coproc_start - run path with argv (NULL-terminated) in a new
 *     process of its own group: its stdin and stdout the other end of a
 *     socket pair whose end *fd (non-blocking, close-on-exec, >= 3) is
 *     ours, stderr /dev/null, no other descriptor, signal mask empty and
 *     handlers default, the environment ours without LD_PRELOAD (so the
 *     helper never loads chunkguard).  Our child is a raw fork (a copy
 *     of the address space: nothing it does can touch ours) that never
 *     execs and exits with no exit signal; the helper is its child, so
 *     neither the program's SIGCHLD handler nor its waitpid(-1) sees
 *     either (platform.c, coproc_middle).  Returns the middle process's
 *     pid, or -1 (fork refused, no socket, fds exhausted).
 *     An execve that fails shows as an end of output with nothing read.
 *     Not reentrant: one helper at a time (the caller serialises; the
 *     environment array is static).
 * cg_os_coproc_exchange - write in[0, inlen) to it, then end its input,
 *     and read what it writes into out (cap bytes; no NUL added) until it
 *     ends its output, complete(out, bytes read so far, arg) (when not
 *     NULL; called after each read) says all its answers are in, out is
 *     full, or the clock passes deadline_ns (cg_os_now_ns's clock); both
 *     directions at once (poll), so neither pipe can fill up and block
 *     the other side.  complete is what spares a wait for an EOF that a
 *     process the helper left behind, holding its output, would delay
 *     to the deadline.  Returns the bytes read; *done is true when its
 *     output ended (EOF) or was complete, in time.
 * cg_os_coproc_end - close fd; unless the helper ended its output and
 *     exits at once, have the middle process kill the helper's process
 *     group (SIGTERM to it; SIGKILL after 100 ms); reap the middle one:
 *     waits at most about 200 ms after the first kill (a child that
 *     cannot die is left behind, never waited for).
 */
bool  cg_os_find_program(const char *name, char *buf, size_t cap) CG_HIDDEN;
int   cg_os_coproc_start(const char *path, const char *const *argv, int *fd) CG_HIDDEN;
size_t cg_os_coproc_exchange(int fd, const char *in, size_t inlen, char *out, size_t cap,
                             uint64_t deadline_ns,
                             bool (*complete)(const char *out, size_t got, void *arg),
                             void *arg, bool *done) CG_HIDDEN;
void  cg_os_coproc_end(int pid, int fd, bool ended) CG_HIDDEN;

/* stdio, the program's: flush every stream (before a report ends the
 * process, so that its output is not lost), and write to a stream the
 * program gave us (malloc_info).  These may allocate (stdio's buffers):
 * never under a chunkguard lock. */
struct _IO_FILE;
void  cg_os_flush_stdio(void) CG_HIDDEN;
void  cg_os_fwrite(struct _IO_FILE *fp, const char *buf, size_t len) CG_HIDDEN;

/* Is the byte at addr readable?  (process_vm_readv on our own pid, which
 * fails with EFAULT for an unmapped or unreadable address.) */
bool  cg_os_readable(const void *addr) CG_HIDDEN;
/* Copy len bytes from src to dst as far as src is readable (the same
 * system call): the bytes copied, stopping at the first page that is not
 * (another thread may seal it meanwhile: never a fault). */
size_t cg_os_copy_readable(void *dst, const void *src, size_t len) CG_HIDDEN;
/* When process_vm_readv is refused (a seccomp filter: EPERM or ENOSYS),
 * cg_os_copy_readable copies through a pipe instead (write fails with
 * EFAULT on an unreadable page), and when that is refused too, reads
 * /proc/thread-self/mem (which reads PROT_NONE pages as well: "readable"
 * then means mapped); the choice is kept.  cg_os_copy_works: does one of
 * them copy (false: every read answers 0 bytes)?  cg_os_copy_method: the
 * one in use, for a report ("process_vm_readv", ..., "none"). */
bool  cg_os_copy_works(void) CG_HIDDEN;
const char *cg_os_copy_method(void) CG_HIDDEN;
/* mprotect: true when done. */
bool  cg_os_protect(void *p, size_t len, int prot) CG_HIDDEN;

/* libc's thread runtime: a TLS key whose destructor runs when a thread
 * exits (cg_os_thread_key: false when none can be made; the key's value
 * is the thread's, set with cg_os_thread_key_set), and pthread_atfork.
 * These may allocate: call them where a callout is allowed (thread.h). */
bool  cg_os_thread_key(unsigned *key, void (*destructor)(void *value)) CG_HIDDEN;
void  cg_os_thread_key_set(unsigned key, void *value) CG_HIDDEN;
void  cg_os_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) CG_HIDDEN;
/* libc's __register_atfork itself (the one past chunkguard's, which
 * entry/interpose.c exports): 0 or an errno value, ENOMEM also when libc
 * has none.  dso: the handlers' object (its dlclose drops them). */
int   cg_os_register_atfork_next(void (*prepare)(void), void (*parent)(void),
                                 void (*child)(void), void *dso) CG_HIDDEN;
/* fork past chunkguard's (RTLD_NEXT; libc's __fork if none): libc's runs
 * the atfork handlers, then the clone. */
pid_t cg_os_fork(void) CG_HIDDEN;
/* The child's half of daemon(3): a new session (setsid), the working
 * directory "/" unless nochdir, and unless noclose stdin, stdout and
 * stderr on /dev/null (refused, ENODEV, when that is not the null
 * character device).  0, or -1 with errno set.  May be called only in
 * a fork child: it changes the process's session and descriptors. */
int   cg_os_detach(int nochdir, int noclose) CG_HIDDEN;
/* at_quick_exit(3) with chunkguard's object as the owner: fn runs when the
 * process calls quick_exit, after the handlers registered later.  false
 * when libc could not register it. */
bool  cg_os_at_quick_exit(void (*fn)(void)) CG_HIDDEN;
/* pthread_create past chunkguard's (RTLD_NEXT: libc's, or a library's
 * preloaded after chunkguard that wraps it too): its arguments and result
 * (0 or an errno value; EAGAIN when there is none). */
int   cg_os_thread_create_next(pthread_t *thread, const pthread_attr_t *attr,
                               void *(*fn)(void *), void *arg) CG_HIDDEN;
/* Is chunkguard linked into the main program (libchunkguard.a), not a
 * shared object of its own?  There a shared library's pthread_atfork
 * reaches libc's __register_atfork, not the program's. */
bool  cg_os_in_main_program(void) CG_HIDDEN;

/* glibc's stdio list lock (_IO_list_lock, exported and recursive: the
 * lock fflush(NULL) and fopen hold while they take FILE locks and malloc,
 * and that glibc's fork takes after the prepare handlers).  The fork
 * handlers take it before every chunkguard lock (docs/design.md, "Fork").
 * cg_os_stdio_list_lock is false, and takes nothing, in a libc without it;
 * cg_os_stdio_list_reset (a fork child's) makes it free whoever held it. */
bool  cg_os_stdio_list_lock(void) CG_HIDDEN;
void  cg_os_stdio_list_unlock(void) CG_HIDDEN;
void  cg_os_stdio_list_reset(void) CG_HIDDEN;

/* The calling thread's signal mask: block every signal but the
 * synchronous ones (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS,
 * SIGABRT: a fault or an abort there must still be delivered) and glibc's
 * own two (cancellation, set*id), for a stretch a signal handler must not
 * interrupt; the mask before goes to *old, for cg_os_restore_signals.
 * Async-signal-safe, errno kept. */
void  cg_os_block_async_signals(uint64_t *old) CG_HIDDEN;
void  cg_os_restore_signals(uint64_t old) CG_HIDDEN;

/* Signals: sigaction, 0 or -1 (errno kept). */
struct sigaction;
int   cg_os_sigaction(int sig, const struct sigaction *act, struct sigaction *old) CG_HIDDEN;
/* libc's sigaction for a call the program made (entry/signals.c): its
 * result and errno as libc gives them. */
int   cg_os_program_sigaction(int sig, const struct sigaction *act, struct sigaction *old) CG_HIDDEN;
/* The calling thread's signal mask (pthread_sigmask; errno kept), and a
 * signal sent to the calling thread itself (tgkill; errno kept). */
void  cg_os_sigmask(int how, const sigset_t *set, sigset_t *old) CG_HIDDEN;
void  cg_os_resend(int sig) CG_HIDDEN;
/*
 * Other threads of the process, for the leak check's stop (debug/leaks.c).
 * cg_os_threads - the kernel ids of the process's threads now (from
 *     /proc/self/task), up to cap of them into tids; returns how many
 *     there are (may exceed cap), 0 when the list cannot be read.
 * cg_os_thread_signal - send sig to thread tid of this process (tgkill);
 *     false when it is gone or the signal could not be sent.
 * cg_os_thread_status - thread tid as /proc/self/task/TID/status gives it:
 *     CG_OS_THREAD_GONE when it has exited (a zombie, state Z or X: the
 *     main thread after pthread_exit, while others run) or is not listed,
 *     CG_OS_THREAD_MASKED when it blocks sig (SigBlk) or that cannot be
 *     read, else CG_OS_THREAD_RUNS.
 * cg_os_thread_syscall_sp - the stack pointer of thread tid while it is
 *     blocked in a system call (/proc/self/task/TID/syscall), 0 when it
 *     runs in user code or that cannot be read.
 * cg_os_thread_pending - is sig pending for thread tid (SigPnd)?  false
 *     when that cannot be read.
 * cg_os_stop_signal_take - a real-time signal no handler of the program's
 *     uses (the highest whose disposition is now the default, other than
 *     avoid), with fn installed as its handler: fn(ucontext) runs on the
 *     thread the signal went to, every signal blocked, errno kept, and
 *     only for a signal this process sent with tgkill.  Taken for one
 *     check: a signal still held from a check before (see give_back) is
 *     given again if its handler is still ours.  0 when none is free.
 *     Not thread-safe: one check at a time (debug/leaks.c's guard).
 * cg_os_stop_signal_held - is sig's handler still the one take installed
 *     (the program has not set its own since)?
 * cg_os_stop_signal_give_back - put back the action the program had on
 *     every signal taken, except those in keep (bit sig - 1: still pending
 *     on a thread, whose delivery with the default action would end the
 *     process; they stay held until a later give_back).  A signal whose
 *     action the program changed meanwhile is left as the program set it.
 * cg_os_ucontext_regs - the general registers a signal interrupted
 *     (ucontext: the handler's third argument), up to cap into regs, and
 *     the stack pointer into *sp; returns how many were stored.
 *     Async-signal-safe.
 * cg_os_ucontext_unmask - set the calling thread's signal mask to the one
 *     the signal handler's ucontext saved (what the handler's return
 *     would restore), now: a handler calls it to stop blocking signals
 *     before it returns.  Signals pending and unblocked by it are
 *     delivered at once, nested in the handler.  Async-signal-safe.
 * None calls malloc; all keep errno.
 */
size_t cg_os_threads(uint32_t *tids, size_t cap) CG_HIDDEN;
bool  cg_os_thread_signal(uint32_t tid, int sig) CG_HIDDEN;
enum { CG_OS_THREAD_RUNS, CG_OS_THREAD_MASKED, CG_OS_THREAD_GONE };
int   cg_os_thread_status(uint32_t tid, int sig) CG_HIDDEN;
uintptr_t cg_os_thread_syscall_sp(uint32_t tid) CG_HIDDEN;
bool  cg_os_thread_pending(uint32_t tid, int sig) CG_HIDDEN;
int   cg_os_stop_signal_take(void (*fn)(const void *ucontext), int avoid) CG_HIDDEN;
bool  cg_os_stop_signal_held(int sig) CG_HIDDEN;
void  cg_os_stop_signal_give_back(uint64_t keep) CG_HIDDEN;
/*
 * Sections of chunkguard's that run with every signal blocked for a moment
 * (the unwinder's: libunwind blocks them around its DWARF lookups), so that
 * the leak check can tell such a thread from one that blocks its stop
 * signal for good: the first is sent the signal anyway, which stays pending
 * and is delivered, and answered, as soon as the section's mask lifts.
 * cg_os_section_enter / _leave - the calling thread enters / leaves one
 *     (nested: counted).  Call enter before the mask is set and leave after
 *     it is lifted, with what enter returned (false: not registered, as
 *     in a single-threaded process, which then takes no atomic).  Lock-free, async-signal-safe, no malloc; one CAS on a
 *     cache line of the thread's own.  With more than 256 threads inside at
 *     once, the others are not registered.
 * cg_os_in_section - is thread tid inside one now?
 */
bool  cg_os_section_enter(void) CG_HIDDEN;
void  cg_os_section_leave(bool entered) CG_HIDDEN;
bool  cg_os_in_section(uint32_t tid) CG_HIDDEN;
/* The entry address of libc's exit() (the one the program's calls bind
 * to): where the leak check's unwind stops to find exit's caller. */
uintptr_t cg_os_exit_function(void) CG_HIDDEN;
#define CG_OS_NREGS 32
size_t cg_os_ucontext_regs(const void *ucontext, uintptr_t *regs, size_t cap, uintptr_t *sp) CG_HIDDEN;
void  cg_os_ucontext_unmask(const void *ucontext) CG_HIDDEN;
/* The x86_64 ABI's red zone: a leaf function may keep live data in the
 * 128 bytes below its stack pointer, which a signal frame skips. */
#if defined(__x86_64__)
#define CG_OS_RED_ZONE 128
#else
#define CG_OS_RED_ZONE 0
#endif

/* The calling thread's alternate signal stack (sigaltstack): *old_sp is
 * the one in use (NULL: none); then it becomes [sp, sp + size), or none
 * with sp NULL, or stays with sp (void *)1; one system call.  False on
 * failure (*old_sp then unset). */
bool  cg_os_altstack(void *sp, size_t size, void **old_sp) CG_HIDDEN;
/* Bytes of the alternate signal stack left below sp when the calling
 * thread runs on it, or SIZE_MAX when it does not (on its own stack, whose
 * room is not known).  Async-signal-safe. */
size_t cg_os_altstack_room(uintptr_t sp) CG_HIDDEN;
/*
 * cg_os_stack_room - bytes of stack the calling thread has below sp, up to
 * want (no count goes past it).  On its alternate signal stack: the rest of
 * it.  On its own: what can be read below sp, a page at a time (a thread's
 * stack ends at its guard page), and for the main thread what its stack
 * may still grow into under RLIMIT_STACK.  A stack the program made of
 * other memory reads as having the room.  Async-signal-safe; never
 * allocates; at most want / page size + 4 system calls.
 */
size_t cg_os_stack_room(uintptr_t sp, size_t want) CG_HIDDEN;
/* Does sp lie on the calling thread's alternate signal stack (the one
 * sigaltstack names now, whether or not the thread runs on it)? */
bool  cg_os_on_altstack(uintptr_t sp) CG_HIDDEN;

/*
 * The stack pointer's alignment.  The x86_64 ABI promises %rsp + 8 is a
 * multiple of 16 at every function's entry, and compiled code relies on
 * it: glibc's dl_iterate_phdr, libunwind and our own code keep 16-byte
 * values on the stack with movaps, which faults on a misaligned address.
 * A program that hijacked a return address (an exploit, or a test of one)
 * breaks the promise for everything it calls, exit's handlers included.
 * CG_REALIGN marks a function that may start a report: its prologue
 * realigns the stack (gcc's force_align_arg_pointer), so that the report
 * is written however the program left %rsp.  Other ABIs need nothing.
 */
#if defined(__x86_64__)
#define CG_REALIGN __attribute__((force_align_arg_pointer))
#else
#define CG_REALIGN
#endif

/*
 * cg_os_call_on_stack - call fn(arg) with the stack pointer 16-byte
 * aligned, on the stack whose highest address + 1 is top, or on the
 * current stack when top is NULL.
 * @top: NULL, or the end of a mapping of at least the room fn needs
 * The frame in between is a standard frame-pointer frame with unwind
 * information, so a stack walk made inside fn goes on into the caller's
 * frames on the other stack.  Returns when fn returns; async-signal-safe.
 */
void  cg_os_call_on_stack(void (*fn)(void *arg), void *arg, void *top) CG_HIDDEN;
/*
 * cg_os_call_on_new_stack - call fn(arg) on a stack mapped for the call:
 * size bytes above an inaccessible page (running off its end faults, as
 * off a thread's stack), unmapped when fn returns; an fn that ends the
 * process leaves it.  For work that needs more stack than it is on (a
 * program's small alternate signal stack, see cg_os_altstack_room and
 * cg_os_stack_room).  Returns false, not calling fn, when the stack
 * cannot be mapped (no memory).  Async-signal-safe; on x86_64 the switch
 * is cg_os_call_on_stack's, whose frame a stack walk in fn goes through.
 */
bool  cg_os_call_on_new_stack(void (*fn)(void *arg), void *arg, size_t size) CG_HIDDEN;
/*
 * cg_os_fault_no_stack - end the process as the fault signal sig would
 * (its default action: SIGSEGV's core dump, exit status 128 + sig), after
 * one fixed line on fd 2.  For a fault handler re-entered before its work
 * could move off an alternate signal stack too small for it (every such
 * fault is delivered at that stack's top again, over the last: without
 * this, for ever).  Uses a few dozen bytes of stack, no locals; no
 * formatting, no lock.  Async-signal-safe; does not return.
 */
_Noreturn void cg_os_fault_no_stack(int sig) CG_HIDDEN;

/* The dynamic loader: dlopen(name, RTLD_NOW | RTLD_LOCAL), dlsym, and
 * dl_iterate_phdr over the loaded modules.  cg_os_dlopen is NULL in a
 * statically linked executable, which has no dynamic loader. */
struct dl_phdr_info;
void *cg_os_dlopen(const char *name) CG_HIDDEN;
void *cg_os_dlsym(void *handle, const char *name) CG_HIDDEN;
int   cg_os_each_module(int (*cb)(struct dl_phdr_info *info, size_t size, void *arg), void *arg)
    CG_HIDDEN;

/* The C++ runtime, when the process has one (chunkguard never loads it:
 * operator new's failure path needs std::get_new_handler, the throw of
 * std::bad_alloc and libstdc++'s own nothrow forms, entry/cxx.c): the
 * function of that mangled name in libstdc++.so.6 when it is loaded —
 * by the program, a library or dlopen, even RTLD_LOCAL: that library's
 * own definition, never one that interposes it — else, unless lib_only,
 * the first in the process's global scope (another runtime, libc++).
 * NULL when there is none.  May allocate (the loader's bookkeeping):
 * call it outside chunkguard (no lock held, not inside).  errno kept. */
void *cg_os_cxx_function(const char *name, bool lib_only) CG_HIDDEN;

/* The definition of the function name that the process's global scope
 * binds first (dlsym(RTLD_DEFAULT): the program's own when it defines and
 * exports one), or NULL.  May allocate (the loader's bookkeeping): call it
 * outside chunkguard.  errno kept.  Thread-safe. */
void *cg_os_global_function(const char *name) CG_HIDDEN;

/* libc's own read, write and syscall, with libc's contract (-1 and errno):
 * for the shims debug/stack.c installs in libunwind's imports. */
ssize_t cg_os_libc_read(int fd, void *buf, size_t n) CG_HIDDEN;
ssize_t cg_os_libc_write(int fd, const void *buf, size_t n) CG_HIDDEN;
long  cg_os_libc_syscall(long nr, long a, long b, long c, long d, long e, long f) CG_HIDDEN;

/* Counters shared between threads: an atomic add only when the operation
 * runs multi-threaded, so the single-threaded path stays free of locked
 * instructions.  Evaluates to the new value. */
#define CG_ADD_IF(p, v, mt) \
    ((mt) ? __atomic_add_fetch((p), (v), __ATOMIC_RELAXED) : (*(p) += (v)))

/* Shared words read without the lock that serialises their writers
 * (parameters, statistics, heap sizes): relaxed atomics, plain movs on
 * x86_64, so that such reads are well-defined and ThreadSanitizer-clean. */
#define CG_LOAD(x)     __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define CG_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* x = 0, stored only when x is not 0 already: a fork child's reset of a
 * word its parent left clear then does not copy the word's page (each
 * such page costs the child a fault and a 4 KiB copy). */
#define CG_CLEAR_IF_SET(x) \
    do { if (CG_LOAD(x) != 0) CG_STORE((x), 0); } while (0)

/* v < *limit, *limit read as CG_LOAD reads it (relaxed: another thread may
 * be storing it).  On x86_64 the load is the compare's memory operand —
 * one instruction and no register, where the compiler keeps an atomic
 * load apart from the compare (the inline tcache pop's link test,
 * fastpath.h, would otherwise spill a callee-saved register on every
 * malloc). */
CG_INLINE bool cg_below_relaxed(uintptr_t v, const size_t *limit)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
    bool below;
    __asm__("cmpq %2, %1" : "=@ccb"(below) : "r"(v), "m"(*limit));
    return below;
#else
    return v < __atomic_load_n(limit, __ATOMIC_RELAXED);
#endif
}

#endif /* CG_PLATFORM_H */
