/*
 * maps.h — reading /proc/self/maps without malloc: which mapping holds an
 * address, and a line-by-line walk of all of them (reports, leak roots).
 */
#ifndef CG_MAPS_H
#define CG_MAPS_H

#include "platform.h"

/* The bytes of a path as /proc/self/maps shows it, its NUL included: any
 * path the kernel takes (CG_PATH_MAX with its NUL) and the " (deleted)"
 * it adds to a file deleted or replaced while mapped.  A buffer of this
 * size given to cg_maps_next_path or cg_find_mapping_path gets any path
 * whole. */
#define CG_MAPS_PATH_MAX (CG_PATH_MAX + 16)
/* The bytes of the path a cg_mapping_t keeps itself (the look-ups that
 * need no more: [heap], [stack], a module's kind), so that one on the
 * stack stays small: reports can run on a program's alternate signal
 * stack. */
#define CG_MAPS_NAME_MAX 256

typedef struct cg_mapping {
    uintptr_t lo, hi;          /* [lo, hi)                                    */
    uintptr_t base;            /* lowest address of the same file (the module
                                * base); lo for an anonymous mapping          */
    uintptr_t file_off;        /* offset of lo in the file                    */
    uint64_t dev, inode;       /* the file's device (major << 32 | minor) and
                                * inode; inode 0: a mapping of no file        */
    char perms[5];             /* "rw-p" ...                                  */
    bool truncated;            /* the path did not fit in path (or in the
                                * buffer of cg_*_path): do not open it        */
    char path[CG_MAPS_NAME_MAX];   /* file, [stack], [heap], ...; "" if
                                * anonymous; cut to CG_MAPS_NAME_MAX - 1 bytes
                                * (the whole path: cg_*_path, below)          */
} cg_mapping_t;

/* The longest name of no file ([heap], [anon:NAME]: the kernel takes 80
 * bytes of a name) kept to tell such mappings apart. */
#define CG_MAPS_PSEUDO_MAX 96

typedef struct cg_maps_reader {
    int fd;
    size_t pos, len;
    char buf[4096];
    /* the file whose mappings have base as their lowest: by device and
     * inode, else (inode 0) by its pseudo name: the reader keeps no path */
    uint64_t base_dev, base_inode;
    char base_pseudo[CG_MAPS_PSEUDO_MAX];
    bool base_set;
    uintptr_t base;
} cg_maps_reader_t;

/* Open /proc/self/maps for a walk; false if it cannot be read. */
bool cg_maps_open(cg_maps_reader_t *rd) CG_HIDDEN;
/* The next mapping, in address order; false at the end. */
bool cg_maps_next(cg_maps_reader_t *rd, cg_mapping_t *m) CG_HIDDEN;
/* The same, with the whole path in path[cap] too (NUL-terminated; cut,
 * m->truncated set, only when cap < CG_MAPS_PATH_MAX and the path is
 * longer); m->path holds its first CG_MAPS_NAME_MAX - 1 bytes. */
bool cg_maps_next_path(cg_maps_reader_t *rd, cg_mapping_t *m, char *path, size_t cap)
    CG_HIDDEN;
void cg_maps_close(cg_maps_reader_t *rd) CG_HIDDEN;

/* Find address a's mapping; false when no mapping holds it.  While the
 * calling thread holds a snapshot (below), an address in one of its
 * mappings is answered from it, without reading /proc; any other address
 * reads /proc as always.  Async-signal-safe; never allocates. */
bool cg_find_mapping(uintptr_t a, cg_mapping_t *m) CG_HIDDEN;
/* The same, with the mapping's whole path in path[cap] as for
 * cg_maps_next_path (a module a report names).  Async-signal-safe; never
 * allocates; uses about 4.5 KiB of stack (the reader's buffer). */
bool cg_find_mapping_path(uintptr_t a, cg_mapping_t *m, char *path, size_t cap) CG_HIDDEN;

/*
 * cg_maps_snapshot_begin - read /proc/self/maps once (the thread's view,
 * as cg_maps_open) and keep its executable file mappings, up to
 * CG_MAPS_SNAP_MAX, in a static table that cg_find_mapping consults for
 * the calling thread until cg_maps_snapshot_end: a report of many frames
 * (a leak report's groups) then reads the maps once, not once a frame.
 * One thread holds the snapshot at a time: false (nothing to end, every
 * look-up reads /proc) when another thread holds it, this one already
 * does (a nested report), or /proc cannot be read.  The mappings are as
 * they were at the read: meant for the span of one report.
 * Thread-safe (an atomic owner), async-signal-safe; never allocates.
 */
#define CG_MAPS_SNAP_MAX 128
bool cg_maps_snapshot_begin(void) CG_HIDDEN;
void cg_maps_snapshot_end(void) CG_HIDDEN;
/* Non-zero while the calling thread holds a snapshot: a number that
 * differs for every snapshot taken (so a cache keyed on it is valid for
 * one snapshot's span only); 0 otherwise. */
unsigned cg_maps_snapshot_id(void) CG_HIDDEN;
/* A fork child's reset: a snapshot another thread of the parent held is
 * not the child's (that thread does not exist in it). */
void cg_maps_after_fork_child(void) CG_HIDDEN;

#endif /* CG_MAPS_H */
