/*
 * thread.c — the per-thread state (thread.h).
 */
#include "thread.h"

CG_TLS cg_thread_t cg_self;
