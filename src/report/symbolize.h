/*
 * symbolize.h — names for code addresses, without malloc: the module from
 * /proc/self/maps, the function from the module's own ELF symbol tables
 * (.symtab, else .dynsym), so static functions are named too.
 *
 * Every function here formats into the caller's buffer and uses a few KiB
 * of stack at most; none calls malloc or stdio.  Files are opened read-only
 * and mapped with mmap; the last few modules stay mapped in a small fixed
 * cache (a module is re-checked by device, inode, size and mtime on each
 * use).  A truncated or corrupt ELF file gives "no function", never a
 * crash: every offset is checked against the file size.  Not
 * async-signal-safe in the strict sense (open, mmap), but safe in a fatal
 * signal handler: the cache lock is only tried, never waited for.
 *
 * The offset printed is the address the module's own ELF headers give the
 * instruction (its virtual address): for a shared object or a PIE, pc minus
 * the load address; for a non-PIE executable, pc itself.  That is what
 * `addr2line -e MODULE 0xOFF` expects.  When the ELF file cannot be read,
 * it is pc minus the module's lowest mapping.
 */
#ifndef CG_SYMBOLIZE_H
#define CG_SYMBOLIZE_H

#include "maps.h"
#include "call.h"

/* bytes of a module path (with NUL): any path /proc/self/maps shows, whole */
#define CG_SYM_MODULE_MAX CG_MAPS_PATH_MAX
#define CG_SYM_FUNC_MAX 256      /* bytes kept of a function name (with NUL) */

/* What is known of one code address. */
typedef struct cg_frame {
    char module[CG_SYM_MODULE_MAX];   /* path from /proc/self/maps, "[vdso]",
                                       * "<anonymous>" or "<unknown module>" */
    char function[CG_SYM_FUNC_MAX];   /* its name, demangled; "" when not known */
    char symbol[CG_SYM_FUNC_MAX];     /* the symbol table's (mangled) name, ""
                                       * when the table has none: what the
                                       * dedup hash reads                   */
    uintptr_t pc;                     /* the address shown: pc, or for a
                                       * return address its call
                                       * instruction's (cg_call_site)       */
    uintptr_t offset;                 /* module-relative address of that (see
                                       * above)                             */
    bool in_module;                   /* pc lies in some mapping            */
} cg_frame_t;

/*
 * cg_symbolize_frame - look a code address up.
 * @pc:       the address to describe (what offset is computed for)
 * @is_return: pc is a return address: the frame is its call
 *            instruction (cg_call_site: as objdump and gdb show the call),
 *            so a call that ends a function is named after the caller,
 *            and out->pc and offset are the call's, not the return
 *            address's
 * @out:      filled in; never left uninitialised
 * Returns true when a function name was found.  Thread-safe.
 */
bool cg_symbolize_frame(uintptr_t pc, bool is_return, cg_frame_t *out) CG_HIDDEN;

/*
 * cg_call_site - the address of the call instruction that return address
 * @ret follows (x86_64: an e8 rel32 whose target is code of the same
 * module, else the longest ff /2 ending exactly at ret), as objdump and
 * gdb show the call; ret - 1 (a byte just before ret, as ASan shows
 * frames) when no call decodes there or ret - 1 is not in a readable,
 * executable mapping.  Reads at most 9 bytes before ret, none before the
 * start of the mapping holding ret - 1, through cg_os_copy_readable:
 * never a fault.  Answers are kept for the span of the calling thread's
 * maps snapshot (base/maps.h).  0 for 0.  Thread-safe, async-signal-safe,
 * errno preserved, no malloc.  callsite.c says what is not exact.
 */
uintptr_t cg_call_site(uintptr_t ret) CG_HIDDEN;

/*
 * cg_symbolize - "func (module+0xoff)", or "(module+0xoff)" when no symbol
 * covers pc, into buf (size cap, always NUL-terminated, cut at cap).
 * pc is looked up as given (not as a return address).  Returns the length
 * written.  Thread-safe; no malloc.
 */
size_t cg_symbolize(uintptr_t pc, char *buf, size_t cap) CG_HIDDEN;

/*
 * cg_format_stack - ASan-style lines, one per frame:
 *     "    #N 0xPC in func (module+0xoff)\n"   or, without a symbol,
 *     "    #N 0xPC (module+0xoff)\n"; in a batch that answered the frame
 *     (cg_sym_lookup), "    #N 0xPC in func file:line (module+0xoff)\n",
 *     after one such line per inlined function, innermost first, each
 *     ending " (inlined)" (the same #N: one address)
 * @exact0: pcs[0] is a faulting instruction (looked up as is), not a return
 *          address
 * @pcs, @n: return addresses as cg_stack_capture gives them (each looked
 *           up and printed at its call instruction, cg_call_site)
 * Writes whole lines only: a line that does not fit in cap ends the output
 * there.  buf is always NUL-terminated (cap > 0).  Returns the length
 * written.  Thread-safe; no malloc.
 */
size_t cg_format_stack(char *buf, size_t cap, const uintptr_t *pcs, size_t n, bool exact0)
    CG_HIDDEN;

/*
 * cg_symbolize_file - like cg_symbolize, but for address @vaddr (an ELF
 * virtual address, as nm prints) of the ELF file at @path, which need not
 * be loaded: "func (path+0xvaddr)" or "(path+0xvaddr)".  For the tests
 * (stripped and corrupt files) and offline use.  Thread-safe; no malloc.
 */
size_t cg_symbolize_file(const char *path, uintptr_t vaddr, char *buf, size_t cap) CG_HIDDEN;

/*
 * Batches: file:line, inlined frames and demangled names from a helper
 * process (llvm-symbolizer, else addr2line), for every frame of one
 * report in one run of it (docs/design.md, "Symbolizing").
 *
 * No helper runs in a set-uid (AT_SECURE) process: its $PATH is not
 * trusted.
 * cg_sym_batch_begin - open the calling thread's batch; false when
 *     symbolize=0 or another thread has one open (that report's frames
 *     then get ELF symbol names only: a batch is tried, never waited
 *     for).
 * cg_sym_batch_add - the frames of a stack (pcs, n, exact0 as for
 *     cg_format_stack) into it; the addresses are those of the calls
 *     (cg_call_site), at most 2048 distinct ones a batch.
 * cg_sym_batch_run - run the helper once over every frame added (for
 *     addr2line, once per module), with one deadline of 5 s for it all
 *     (or half of deadlock_timeout_ms when that is less: the report lock
 *     is held meanwhile);
 *     a helper missing, failing, killed at the deadline, or answering
 *     nonsense leaves the frames it did not answer without.  After a
 *     run that timed out or did not start (nothing answered), no later
 *     batch of the process runs the helper: one line on the log says so
 *     (symbolize.c, give_up).  Starts it
 *     with raw system calls (platform.h, cg_os_coproc_start): no malloc,
 *     safe in a signal handler, a fork child, at exit.
 * cg_sym_lookup - the answer for a frame of the open batch (pc, and
 *     is_return as for cg_symbolize_frame): its frames, innermost inlined
 *     function first, the function the code is in last; 0 when none
 *     (no batch of this thread's, not answered).  cg_format_stack and the
 *     JSON frames use it.
 * cg_sym_batch_end - close it; its answers are gone.
 * Errno preserved.  The answers' strings live until cg_sym_batch_end.
 */
typedef struct cg_sym_inline {
    const char *function;       /* demangled name, NULL when not known      */
    const char *file;           /* source file, NULL when not known         */
    uint32_t line;              /* its line, 0 when not known               */
} cg_sym_inline_t;

bool cg_sym_batch_begin(void) CG_HIDDEN;
void cg_sym_batch_add(const uintptr_t *pcs, size_t n, bool exact0) CG_HIDDEN;
void cg_sym_batch_run(void) CG_HIDDEN;
size_t cg_sym_lookup(uintptr_t pc, bool is_return, const cg_sym_inline_t **frames) CG_HIDDEN;
void cg_sym_batch_end(void) CG_HIDDEN;

/*
 * cg_frame_named - cg_symbolize_frame, then, when the symbol tables give
 * no name and the calling thread's open batch (above) names the function
 * the code is in, that name, copied into out->function (cut to
 * CG_SYM_FUNC_MAX - 1 bytes; out->symbol stays "").  What a JSON frame's
 * "function" is; the dedup hash reads out->symbol only (dedup.h), the
 * same with and without the batch.  Returns true
 * when out->function is set.  Thread-safe; no malloc.
 */
bool cg_frame_named(uintptr_t pc, bool is_return, cg_frame_t *out) CG_HIDDEN;

/*
 * cg_sym_code_range - the function a code address lies in, by the call
 * frame information of its module as loaded (.eh_frame_hdr's sorted
 * table, then the FDE's address range: the table the unwinder uses, kept
 * in a stripped program): look (an address of the code: a return
 * address less one) lies *off bytes into a function of *size bytes.
 * For a frame with no symbol, what does not change when the program is
 * rebuilt with other functions moved (the dedup hash, dedup.h).  The
 * module's memory is read with cg_os_copy_readable (never a fault: a
 * module unmapped meanwhile gives false).  Supports the table encoding
 * GNU ld, gold and lld write (datarel sdata4) and 32-bit FDEs; false
 * for anything else, or no table.  Thread-safe; no malloc; about 20
 * system calls.
 */
bool cg_sym_code_range(uintptr_t look, size_t *off, size_t *size) CG_HIDDEN;

/* Fork handlers for the symbolizer's file cache (entry/init.c). */
void cg_symbolize_lock_all(const cg_call_t *call) CG_HIDDEN;
void cg_symbolize_unlock_all(bool child) CG_HIDDEN;

/*
 * cg_demangle - a C++ (Itanium ABI) symbol name demangled, without malloc.
 * @sym: a NUL-terminated symbol name
 * @out: the demangled name, NUL-terminated, cut to cap - 1 bytes, its
 *       last three "..." when it was cut
 * Returns false (out left "") when sym is not a C++ mangling or is longer
 * than CG_DEMANGLE_MAX bytes.  The demangler's stack use grows with the
 * name (~87 bytes a byte): a name of CG_SYM_FUNC_MAX - 1 bytes or more is
 * demangled on a stack mmap'ed for the call (false when the map fails).
 * Thread-safe, async-signal-safe.  libiberty's demangler (demangle.c).
 */
#define CG_DEMANGLE_MAX 8192
bool cg_demangle(const char *sym, char *out, size_t cap);

#endif /* CG_SYMBOLIZE_H */
