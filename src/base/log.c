/*
 * log.c — the log (log.h): fd 2, or the file log_path names.
 */
#include "log.h"

#include <fcntl.h>
#include <unistd.h>

#include "options.h"

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
