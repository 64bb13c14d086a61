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
 * after (once a process) a warning there naming the path and the errno.
 * Async-signal-safe (errno preserved); never allocates.
 */
void cg_log_write(const char *buf, size_t len) CG_HIDDEN;

#endif /* CG_LOG_H */
