/*
 * checks.c — the reporters of the catalogue's checks (checks.h): each
 * cg_fail_<id> hands its entry's token, sentence and glibc message to
 * cg_report; cg_check_fill gives them to a report written another way.
 */
#include "checks.h"

#include "render.h"

typedef struct check_text {
    cg_error_t kind;
    const char *glibc;            /* NULL: glibc has no such check */
    const char *sentence;
} check_text_t;

static const check_text_t checks[CG_CK_COUNT] = {
#define CG_CHECK_ENTRY(id, token, sw, glibc_msg, sentence_text) \
    [CG_CK_##id] = { CG_E_##token, glibc_msg, sentence_text },
#define CG_VERIFY_ENTRY(id, token, name, what)
#include "checks.def"
};

const char *cg_check_message(cg_check_t id, const char *detail, char *buf, size_t cap)
{
    if (detail == NULL)
        cg_fmt(buf, cap, "%s", checks[id].sentence);
    else
        cg_fmt(buf, cap, "%s: %s", checks[id].sentence, detail);
    return buf;
}

void cg_check_fill(cg_rdata_t *d, cg_check_t id, const char *detail, char *buf, size_t cap)
{
    d->kind = checks[id].kind;
    d->glibc = checks[id].glibc;
    d->message = cg_check_message(id, detail, buf, cap);
}

bool (*cg_fail_hook)(const cg_call_t *call, cg_check_t id, cg_error_t kind, const void *addr,
                    const char *detail);

/* A report begun: what cg_fail_with and cg_fail_no_addr hand the body
 * that writes it (fail_body), on the stack cg_report_run picks. */
typedef struct fail_args {
    const cg_call_t *call;
    cg_check_t id;
    const void *addr;
    const char *detail;
    bool no_addr;
} fail_args_t;

/* The report itself: its message buffer and report_final's frames (the
 * stack's frame array, the report's data) are built here, past
 * cg_report_run's room check — never on the few hundred bytes a
 * program's small alternate signal stack may have left. */
static CG_NOINLINE void fail_body(void *arg)
{
    const fail_args_t *a = arg;
    const cg_call_t *call = a->call;
    cg_check_t id = a->id;
    const char *detail = a->detail;
    /* The core's state is damaged: this report is final even where the
     * hook's would return (halt_on_error=0, a report callback). */
    if (!a->no_addr && cg_fail_hook != NULL &&
        cg_fail_hook(call, id, checks[id].kind, a->addr, detail))
        cg_report_exit();
    char msg[768];
    const char *text = detail ? cg_check_message(id, detail, msg, sizeof msg) : checks[id].sentence;
    if (a->no_addr)
        cg_report_addr_unknown(call, checks[id].kind, text, checks[id].glibc);
    cg_report(call, checks[id].kind, a->addr, text, checks[id].glibc);
}

void cg_fail_with(const cg_call_t *call, cg_check_t id, const void *addr, const char *detail)
{
    fail_args_t a = { call, id, addr, detail, false };
    cg_report_run(fail_body, &a);
    cg_os_abort();                /* not reached: the body ends the process */
}

void cg_fail_no_addr(const cg_call_t *call, cg_check_t id, const char *detail)
{
    fail_args_t a = { call, id, NULL, detail, true };
    cg_report_run(fail_body, &a);
    cg_os_abort();                /* not reached */
}

#define CG_CHECK_ENTRY(id, token, sw, glibc, sentence) \
    void cg_fail_##id(const cg_call_t *call, const void *addr) \
    { cg_fail_with(call, CG_CK_##id, addr, NULL); }
#define CG_VERIFY_ENTRY(id, token, name, what)
#include "checks.def"
