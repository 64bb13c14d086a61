/*
 * log.c — the log (log.h): fd 2, or the file log_path names; and the one
 * way a path option's file is written and its open failure warned of.
 */
#include "log.h"

#include <errno.h>
#include <string.h>

#include "fmt.h"
#include "options.h"

/* The warning's text: static, as only the thread that set *warned builds
 * one, once a process for each option. */
static CG_BIG_BSS char warn_buf[CG_OPT_PATH_BUF + 192];   /* written only to warn */

void cg_path_open_warn(const char *option, const char *path, int err, int *warned)
{
    if (err == 0 || __atomic_exchange_n(warned, 1, __ATOMIC_RELAXED))
        return;
    bool is_log = strcmp(option, "log_path") == 0;
    size_t n = cg_fmt(warn_buf, sizeof warn_buf, "==%d==WARNING: chunkguard: cannot open %s "
                      "'%s': %s (errno %d)%s\n", cg_os_getpid(), option, path,
                      cg_os_errno_name(err), err, is_log ? "; writing to stderr" : "");
    /* the log's own failure cannot be told on the log */
    if (is_log)
        cg_os_write_all(2, warn_buf, n);
    else
        cg_log_write(warn_buf, n);
}

bool cg_path_write(const char *option, const char *value, const char *buf, size_t len,
                   bool append, int *warned)
{
    char path[CG_OPT_PATH_BUF];
    int saved = errno;
    cg_expand_path(path, sizeof path, value);
    errno = 0;
    bool ok = cg_os_write_file(path, buf, len, append);
    if (!ok)
        cg_path_open_warn(option, path, errno, warned);
    errno = saved;
    return ok;
}

/* A log_path that could not be opened has been warned of (once a
 * process: every later line would repeat it). */
static int log_warned;

void cg_log_write(const char *buf, size_t len)
{
    if (cg_opt.log_path[0] != 0 &&
        cg_path_write("log_path", cg_opt.log_path, buf, len, true, &log_warned))
        return;
    cg_os_write_all(2, buf, len);
}
