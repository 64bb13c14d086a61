/*
 * log.c — the log (log.h): fd 2, or the file log_path names.
 */
#include "log.h"

#include "options.h"

void cg_log_write(const char *buf, size_t len)
{
    if (cg_opt.log_path[0] != 0) {
        char path[CG_OPT_STRING_MAX + 32];
        cg_expand_path(path, sizeof path, cg_opt.log_path);
        if (cg_os_write_file(path, buf, len, true))
            return;
    }
    cg_os_write_all(2, buf, len);
}
