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

#include "platform.h"

#define CG_SYM_MODULE_MAX 256    /* bytes kept of a module path (with NUL)   */
#define CG_SYM_FUNC_MAX 256      /* bytes kept of a function name (with NUL) */

/* What is known of one code address. */
typedef struct cg_frame {
    char module[CG_SYM_MODULE_MAX];   /* path from /proc/self/maps, "[vdso]",
                                       * "<anonymous>" or "<unknown module>" */
    char function[CG_SYM_FUNC_MAX];   /* symbol name, "" when not known     */
    uintptr_t offset;                 /* module-relative address (see above) */
    bool in_module;                   /* pc lies in some mapping            */
} cg_frame_t;

/*
 * cg_symbolize_frame - look a code address up.
 * @pc:       the address to describe (what offset is computed for)
 * @is_return: pc is a return address: the lookup uses pc - 1 (the call
 *            instruction), so a call that ends a function is named after
 *            the caller, while offset is still that of pc
 * @out:      filled in; never left uninitialised
 * Returns true when a function name was found.  Thread-safe.
 */
bool cg_symbolize_frame(uintptr_t pc, bool is_return, cg_frame_t *out) CG_HIDDEN;

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
 *     "    #N 0xPC (module+0xoff)\n"
 * @exact0: pcs[0] is a faulting instruction (looked up as is), not a return
 *          address
 * @pcs, @n: return addresses as cg_stack_capture gives them (each is looked
 *           up at pc - 1 and printed as pc)
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

/* Fork handlers for the symbolizer's file cache (entry/init.c). */
void cg_symbolize_lock_all(void) CG_HIDDEN;
void cg_symbolize_unlock_all(bool child) CG_HIDDEN;

#endif /* CG_SYMBOLIZE_H */
