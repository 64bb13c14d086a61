/*
 * log.c — the log (log.h): fd 2, or the file log_path names.
 */
#include "log.h"

#include <errno.h>

#include "fmt.h"
#include "options.h"

/* A log_path that could not be opened has been warned of (once a
 * process: every later line would repeat it). */
static int warned;

void cg_log_write(const char *buf, size_t len)
{
    if (cg_opt.log_path[0] != 0) {
        char path[CG_OPT_STRING_MAX + 32];
        int saved = errno;
        cg_expand_path(path, sizeof path, cg_opt.log_path);
        errno = 0;
        if (cg_os_write_file(path, buf, len, true)) {
            errno = saved;
            return;
        }
        int e = errno;
        if (e != 0 && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
            char w[CG_OPT_STRING_MAX + 160];
            size_t n = cg_fmt(w, sizeof w, "==%d==WARNING: chunkguard: cannot open log_path "
                              "'%s': %s (errno %d); writing to stderr\n", cg_os_getpid(), path,
                              cg_os_errno_name(e), e);
            cg_os_write_all(2, w, n);
        }
        errno = saved;
    }
    cg_os_write_all(2, buf, len);
}
