/*
 * report.c — fatal reports (see report.h).
 */
#include "report.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "thread.h"

static const char *const tokens[CG_E_COUNT] = {
#define CG_ERROR(id, token) [CG_E_##id] = token,
#include "errors.def"
#undef CG_ERROR
};

static int reporting;   /* set by the first report; a nested one aborts at once */

static uintptr_t parse_hex(const char **s)
{
    uintptr_t v = 0;
    for (;; (*s)++) {
        char c = **s;
        if (c >= '0' && c <= '9') v = v * 16 + (uintptr_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (uintptr_t)(c - 'a' + 10);
        else return v;
    }
}

/* Find pc's mapping in /proc/self/maps, reading it in pieces into a stack
 * buffer.  "module+0xoffset" uses the lowest mapping of the same file as the
 * module base (its load address for a shared object). */
size_t cg_describe_pc(char *buf, size_t cap, uintptr_t pc)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cg_fmt(buf, cap, "<unknown module>");
    char chunk[4096], line[512], base_path[256] = "";
    size_t ll = 0;
    uintptr_t base = 0;
    size_t result = 0;
    bool found = false;
    ssize_t n;
    while (!found && (n = read(fd, chunk, sizeof chunk)) > 0) {
        for (ssize_t i = 0; i < n && !found; i++) {
            if (chunk[i] != '\n') {
                if (ll < sizeof line - 1)
                    line[ll++] = chunk[i];
                continue;
            }
            line[ll] = 0;
            ll = 0;
            const char *s = line;
            uintptr_t lo = parse_hex(&s);
            s++;
            uintptr_t hi = parse_hex(&s);
            const char *path = strchr(s, '/');
            if (path == NULL)
                path = strchr(s, '[');
            if (path != NULL && strcmp(path, base_path) != 0) {
                size_t pl = strlen(path);
                if (pl < sizeof base_path) {
                    memcpy(base_path, path, pl + 1);
                    base = lo;
                }
            }
            if (pc >= lo && pc < hi) {
                found = true;
                if (path != NULL)
                    result = cg_fmt(buf, cap, "%s+0x%x", path, (size_t)(pc - base));
                else
                    result = cg_fmt(buf, cap, "<anonymous>+0x%x", (size_t)(pc - lo));
            }
        }
    }
    close(fd);
    return found ? result : cg_fmt(buf, cap, "<unknown module>");
}

void cg_log_write(const char *buf, size_t len)
{
    int fd = 2;
    if (cg_opt.log_path[0] != 0) {
        char path[CG_OPT_STRING_MAX + 32];
        cg_expand_path(path, sizeof path, cg_opt.log_path);
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
            fd = 2;
    }
    cg_os_write_all(fd, buf, len);
    if (fd != 2)
        close(fd);
}

void cg_report_exit(void)
{
    /* exitcode given alone selects exiting; abort_on_error=1 given wins. */
    bool do_abort = CG_OPT_GIVEN(abort_on_error) ? cg_opt.abort_on_error
                                                 : !CG_OPT_GIVEN(exitcode);
    if (do_abort)
        abort();
    _exit(cg_opt.exitcode);
}

void cg_report(cg_error_t kind, const void *addr, const char *check, const char *glibc)
{
    if (__atomic_exchange_n(&reporting, 1, __ATOMIC_ACQ_REL)) {
        static const char nested[] = "==chunkguard: error while reporting an error; aborting\n";
        cg_os_write_all(2, nested, sizeof nested - 1);
        abort();
    }
    char buf[2048], where[512];
    const char *op = cg_self.op ? cg_self.op : "an allocator call";
    uintptr_t pc = cg_self.caller;
    cg_describe_pc(where, sizeof where, pc);
    int pid = (int)getpid();
    size_t n = cg_fmt(buf, sizeof buf,
                      "==%d==ERROR: chunkguard: %s on address %p\n"
                      "    %s(): %s%s%s%s\n"
                      "    #0 %p (%s)\n"
                      "SUMMARY: chunkguard: %s in %s()\n",
                      pid, tokens[kind], addr, op, check,
                      glibc ? " (glibc: \"" : "", glibc ? glibc : "", glibc ? "\")" : "",
                      (void *)pc, where, tokens[kind], op);
    cg_log_write(buf, n);
    cg_report_exit();
}
