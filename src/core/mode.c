/*
 * mode.c — the mode in force (mode.h).  All zero (no operation, no flag)
 * until init copies the chosen table in.
 */
#include "mode.h"

cg_mode_t cg_mode;
