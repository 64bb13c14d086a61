/*
 * maps.h — reading /proc/self/maps without malloc: which mapping holds an
 * address, and a line-by-line walk of all of them (reports, leak roots).
 */
#ifndef CG_MAPS_H
#define CG_MAPS_H

#include "platform.h"

typedef struct cg_mapping {
    uintptr_t lo, hi;          /* [lo, hi)                                    */
    uintptr_t base;            /* lowest address of the same file (the module
                                * base); lo for an anonymous mapping          */
    uintptr_t file_off;        /* offset of lo in the file                    */
    char perms[5];             /* "rw-p" ...                                  */
    bool truncated;            /* path longer than kept here: do not open it  */
    char path[256];            /* file, [stack], [heap], ...; "" if anonymous */
} cg_mapping_t;

typedef struct cg_maps_reader {
    int fd;
    size_t pos, len;
    char buf[4096];
    char base_path[256];       /* the file whose base is base                 */
    uintptr_t base;
} cg_maps_reader_t;

/* Open /proc/self/maps for a walk; false if it cannot be read. */
bool cg_maps_open(cg_maps_reader_t *rd) CG_HIDDEN;
/* The next mapping, in address order; false at the end. */
bool cg_maps_next(cg_maps_reader_t *rd, cg_mapping_t *m) CG_HIDDEN;
void cg_maps_close(cg_maps_reader_t *rd) CG_HIDDEN;

/* Find address a's mapping; false when no mapping holds it.
 * Async-signal-safe; never allocates. */
bool cg_find_mapping(uintptr_t a, cg_mapping_t *m) CG_HIDDEN;

#endif /* CG_MAPS_H */
