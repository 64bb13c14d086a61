/*
 * checks.h — the catalogue of checks (checks.def) as C: the ids, the
 * compile-time switches, and one cold, non-returning reporter per check.
 *
 * A check's inline test stays where it is (core code, in a plain if on
 * CG_CHECK_ON(<switch>)); when it fails it calls the check's reporter,
 * which knows the token, glibc's message and our sentence from the
 * catalogue, so a call site carries no text, only the call being served
 * (base/call.h: the report names its function and call site):
 *     if (CG_CHECK_ON(FASTTOP) && CG_UNLIKELY(old == c))
 *         cg_fail_FASTTOP(call, cg_chunk2mem(c));
 */
#ifndef CG_CHECKS_H
#define CG_CHECKS_H

#include "report.h"

/* CG_CK_<id>, one per CG_CHECK_ENTRY (the heap verifier's kinds are HC_<id>,
 * heapcheck.h). */
typedef enum cg_check {
#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence) CG_CK_##id,
#define CG_VERIFY_ENTRY(id, token, name, what)
#include "checks.def"
    CG_CK_COUNT
} cg_check_t;

/*
 * CG_CHECK_ON(sw) - the compile-time switch CG_CHECK_<sw>: 1 (the check is
 * compiled in) unless the build defines CG_CHECK_<sw> to 0, e.g.
 * `make CG_DEFS=-DCG_CHECK_FASTTOP=0`; a constant, used in plain if
 * statements so both sides stay type-checked.  sw must be a switch some
 * catalogue entry names (cg_switch_<sw> exists only then), so a misspelt
 * switch does not compile.  The test: CG_CHECK_<sw> expands to 0 only when
 * so defined; pasted after CG_SW_OFF_, only "0" makes a macro, which
 * inserts an argument and so moves the 0 into the picked place.
 */
#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence) typedef char cg_switch_##sw;
#define CG_VERIFY_ENTRY(id, token, name, what)
#include "checks.def"
#define CG_SW_OFF_0 ~, 0
#define CG_SW_PICK(a, b, ...) b
#define CG_SW_PICK_(...) CG_SW_PICK(__VA_ARGS__)
#define CG_SW_VALUE__(x) CG_SW_PICK_(CG_SW_OFF_##x, 1, ~)
#define CG_SW_VALUE_(x) CG_SW_VALUE__(x)
#define CG_CHECK_ON(sw) (CG_SW_VALUE_(CG_CHECK_##sw) + 0 * (int)sizeof(cg_switch_##sw))

/* How a pointer the program hands back is used: the three entries of a
 * CG_PER_USE check follow its _FREE id in this order. */
typedef enum cg_use {
    CG_USE_FREE,          /* free, free_sized, free_aligned_sized */
    CG_USE_REALLOC,
    CG_USE_USABLE,        /* malloc_usable_size: reports invalid-pointer */
} cg_use_t;
#define CG_CK_FOR_USE(family, use) ((cg_check_t)(CG_CK_##family##_FREE + (use)))

/* cg_fail_<id> - report check <id> about addr (a user pointer, or the
 * corrupted structure), found serving call, and end the process
 * (cg_report).  Never returns. */
#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence) \
    _Noreturn void cg_fail_##id(const cg_call_t *call, const void *addr) CG_COLD CG_HIDDEN \
        CG_REALIGN;
#define CG_VERIFY_ENTRY(id, token, name, what)
#include "checks.def"

/*
 * cg_fail_with - report check id about addr, found serving call, its
 * sentence followed by ": detail" (numbers: offsets, sizes, addresses), or
 * alone when detail is NULL; then end the process.  For a check whose id
 * is chosen at run time (CG_CK_FOR_USE) or whose report carries values.
 * Never returns.
 */
_Noreturn void cg_fail_with(const cg_call_t *call, cg_check_t id, const void *addr,
                            const char *detail) CG_COLD CG_HIDDEN CG_REALIGN;
/* cg_fail_no_addr - cg_fail_with for a fault check (FAULT_INSIDE) whose
 * fault named no address (report/report.h, cg_report_addr_unknown); the
 * instrumented mode's hook, which leaves the fault checks to cg_report,
 * is not asked.  Never returns. */
_Noreturn void cg_fail_no_addr(const cg_call_t *call, cg_check_t id, const char *detail)
    CG_COLD CG_HIDDEN CG_REALIGN;

/*
 * cg_fail_hook - set once at initialisation by an instrumented mode
 * (debug/debug.c), NULL otherwise: cg_fail_with hands it the report first
 * (call, check id, its kind, addr, detail), so that the report gets what
 * only that mode knows (the whole stack, the block nearby).  It returns
 * true when it wrote the report (cg_fail_with then ends the process),
 * false to leave it to cg_report.
 */
extern bool (*cg_fail_hook)(const cg_call_t *call, cg_check_t id, cg_error_t kind,
                            const void *addr, const char *detail) CG_HIDDEN;

/* cg_check_message - the report text of check id with detail (as
 * cg_fail_with writes it) in buf.  Returns buf. */
const char *cg_check_message(cg_check_t id, const char *detail, char *buf, size_t cap)
    CG_COLD CG_HIDDEN;

/*
 * cg_check_fill - the catalogue's part of a report written another way
 * (debug mode's recoverable reports with the block's stacks, the lock
 * reports, the re-entrant-call reports): d's kind (check id's token), its
 * glibc message, and its message, the text of check id with detail in buf
 * (cg_check_message).  The caller fills the rest of d and emits it
 * (render.h, cg_report_emit).
 */
struct cg_rdata;
void cg_check_fill(struct cg_rdata *d, cg_check_t id, const char *detail, char *buf, size_t cap)
    CG_COLD CG_HIDDEN;

#endif /* CG_CHECKS_H */
