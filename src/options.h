/*
 * options.h — runtime options (generated from options.def).
 */
#ifndef CG_OPTIONS_H
#define CG_OPTIONS_H

#include "platform.h"

#define CG_OPT_STRING_MAX 256

typedef struct cg_options {
#define CG_OPT_T_bool   bool
#define CG_OPT_T_string char
#define CG_OPT_DIM_bool
#define CG_OPT_DIM_string [CG_OPT_STRING_MAX]
#define CG_OPTION(name, type, def, is_path, help) CG_OPT_T_##type name CG_OPT_DIM_##type;
#include "options.def"
#undef CG_OPTION
} cg_options_t;

extern cg_options_t cg_opt CG_HIDDEN;

/* Parse CHUNKGUARD_OPTIONS into cg_opt (defaults first).  Unknown keys and
 * bad values give one warning line on stderr each and keep the default.
 * Never allocates. */
void cg_options_init(void) CG_HIDDEN;

#endif /* CG_OPTIONS_H */
