/*
 * log.h — where chunkguard's output goes: reports, warnings and the
 * start-up line (log.c).
 */
#ifndef CG_LOG_H
#define CG_LOG_H

#include "platform.h"

/*
 * cg_log_write - write len bytes of buf, one complete line or report, to
 * the log: the file log_path names (opened in append mode for this one
 * write and closed again, so a program that closes and reuses descriptors
 * never receives our output), or fd 2.  One write(2) per call where the
 * kernel allows, so lines from several processes appending to one log do
 * not interleave.  A log_path that cannot be opened sends the line to fd 2,
 * after (once a process) a warning there naming the path and the errno
 * (cg_path_open_warn).
 * Async-signal-safe (errno preserved); never allocates.
 */
void cg_log_write(const char *buf, size_t len) CG_HIDDEN;

/*
 * cg_path_open_warn - warn, once a process per *warned flag (one static
 * int per option, zero at start), that the file `path` of path option
 * `option` (its name, "report_path") could not be opened: one line
 * "==PID==WARNING: chunkguard: cannot open OPTION 'PATH': ENAME (errno N)"
 * on the log, or on fd 2 for log_path itself (with "; writing to stderr").
 * err 0 (a failure that left no errno, a short write) warns nothing.
 * Thread-safe and async-signal-safe (the flag is exchanged atomically;
 * only its winner formats, in a static buffer); never allocates.
 */
void cg_path_open_warn(const char *option, const char *path, int err, int *warned) CG_HIDDEN;

/*
 * cg_path_write - write buf[0, len) to the file path option `option`
 * names (value: the option's text, "%p" expanded by cg_expand_path),
 * appended (append) or replacing it, with cg_os_write_file; on failure
 * cg_path_open_warn(option, path, errno, warned).  True when all of it
 * was written.  errno preserved; async-signal-safe; never allocates.
 */
bool cg_path_write(const char *option, const char *value, const char *buf, size_t len,
                   bool append, int *warned) CG_HIDDEN;

#endif /* CG_LOG_H */
