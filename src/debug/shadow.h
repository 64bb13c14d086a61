/*
 * shadow.h — out-of-band metadata for every block of the instrumented
 * (debug) mode: one record per block, found in O(1) from the block's chunk.
 *
 * Records live in their own mappings (slabs of 4096, never inside a heap),
 * so an overflow of a block cannot reach them.  The link from a chunk to its
 * record is out of band too:
 *   - heap chunks: the heap's shadow map (heap.h), a 32-bit record id per 64
 *     bytes of heap, indexed by the chunk address.  Debug-mode chunks are at
 *     least 64 bytes, so no two of them start in the same 64-byte window;
 *   - big blocks: a small hash table keyed by chunk address.
 * A record names its chunk, so a stale map entry (the chunk was merged
 * away, the record reused) is recognised and ignored.
 *
 * Records come from a shared free list under the shadow lock, through a
 * per-thread cache (cg_rcache_t) for heap chunks, whose binding is the
 * thread's own store into the shadow map; big blocks' table changes under
 * the lock.  The fields of a live record are written by the thread that
 * owns the block (allocation, free) and read by reports.  Memory: 64 bytes (one cache line) per live
 * or quarantined block, plus 4 MiB of shadow map per heap, touched at one
 * 4 KiB page per 64 KiB of heap in use (docs/design.md, "Shadow metadata").
 */
#ifndef CG_SHADOW_H
#define CG_SHADOW_H

#include "call.h"
#include "heap.h"

/* A record's state.  CLAIMED: one thread is freeing or moving the block
 * (claim() in debug.c took it from LIVE with a compare-and-swap), so every
 * other free or realloc of it is a double free; reports and descriptions
 * still call it live, as the program has not finished freeing it.
 * RELEASED: freed, out of the quarantine (checked), waiting in a thread's
 * cache of released chunks (reuse.h) with its record still bound. */
enum { CG_SH_LIVE = 1, CG_SH_QUARANTINED = 2, CG_SH_CLAIMED = 3, CG_SH_RELEASED = 4 };
CG_INLINE bool cg_shadow_seen_live(uint8_t state)
{
    return state == CG_SH_LIVE || state == CG_SH_CLAIMED;
}

/* A record's guarded field: a debug block (a chunk), or a guarded block
 * whose pages are its own — a range of guard mode's (guardpool.h) or a
 * sampled guard slot. */
enum { CG_GUARDED_NONE = 0, CG_GUARDED_RANGE = 1, CG_GUARDED_SLOT = 2 };

/* How a block was allocated: the malloc family's functions, then one
 * kind per C++ family (base/call.h's CG_FAMILY_NEW ... in order). */
enum { CG_KIND_MALLOC = 0, CG_KIND_CALLOC, CG_KIND_REALLOC, CG_KIND_MEMALIGN,
       CG_KIND_NEW, CG_KIND_NEW_ARRAY, CG_KIND_NEW_ALIGNED, CG_KIND_NEW_ARRAY_ALIGNED,
       CG_KIND_COUNT };
_Static_assert(CG_KIND_NEW_ARRAY_ALIGNED - CG_KIND_NEW ==
               CG_FAMILY_NEW_ARRAY_ALIGNED - CG_FAMILY_NEW, "one kind per C++ family");

/* The kind a block allocated by call gets: kind (CG_KIND_MALLOC ...
 * CG_KIND_MEMALIGN, what the mode's table was asked for) for the malloc
 * family, the family's own for operator new's. */
CG_INLINE uint8_t cg_kind_of_call(int kind, const cg_call_t *call)
{
    return (uint8_t)(call->family == CG_FAMILY_MALLOC ? kind
                                                      : CG_KIND_NEW + call->family - CG_FAMILY_NEW);
}

/* The family (CG_FAMILY_*) whose functions release a block of this kind. */
CG_INLINE int cg_kind_family(int kind)
{
    return kind >= CG_KIND_NEW ? kind - CG_KIND_NEW + CG_FAMILY_NEW : CG_FAMILY_MALLOC;
}

/* log2 of an alignment a memalign or an aligned operator new asked for
 * (a power of two; 0: none asked), for the record's align_shift. */
CG_INLINE uint8_t cg_align_shift(size_t align)
{
    return align ? (uint8_t)__builtin_ctzl(align) : 0;
}
enum { CG_MODE_FAST = 0, CG_MODE_DEBUG = 1,
       CG_MODE_INTERNAL = 2 };   /* allocated for chunkguard itself (the
                                  * unwinder's loading): never a leak */

typedef struct cg_shadow {
    cg_chunk_t *chunk;        /* the block's chunk; NULL while the record is free */
    size_t   req;             /* bytes the program asked for                      */
    size_t   head;            /* the chunk's size word when it was handed out     */
    uint32_t alloc_stack;     /* stack depot ids (0: none)                        */
    uint32_t free_stack;
    uint32_t alloc_tid;       /* chunkguard thread numbers (T0 is the first)      */
    uint32_t free_tid;
    uint32_t next;            /* quarantine order, or the free-record list        */
    uint32_t id;              /* this record's own id                             */
    uint32_t lead;            /* bytes from the chunk's memory to the user block  */
    uint8_t  state;           /* CG_SH_*                                          */
    uint8_t  kind;            /* CG_KIND_*: how it was allocated                  */
    uint8_t  mode;            /* CG_MODE_*: the mode it was allocated in          */
    uint8_t  mark;            /* leak scan: reached from a root                   */
    uint8_t  guarded;         /* CG_GUARDED_*: a block on pages of its own
                               * (guardpool.h): chunk is then user - CG_HDR_SZ,
                               * never read, head the first page of its range   */
    uint8_t  align_shift;     /* log2 of the alignment asked for (memalign, aligned
                               * new; 0: none), for aligned delete's check      */
    uint16_t gen;             /* bumped each time the record is bound to a block
                               * (made, or reused from a cache), for a
                               * report's snapshot (cg_shadow_snapshot); its
                               * size takes the record to 64 bytes: one cache
                               * line, so a lookup of a block long untouched
                               * is one miss                                    */
    union {
        uint32_t pages;       /* a guarded block's range, guard page included     */
        uint32_t far;         /* a debug block in a quarantine batch: the record
                               * of the block its thread freed CG_QUARANTINE_FAR
                               * frees later into the same batch (0: none), for
                               * the release's loads ahead (quarantine.h)       */
    };
} cg_shadow_t;
_Static_assert(sizeof(cg_shadow_t) == 64, "one shadow record per cache line");

/* A thread's cache of free records (in its block, dthread.h): a heap
 * chunk's record comes from it and goes back to it without the shadow lock,
 * which is taken once per CG_RCACHE_MAX / 2 records to refill or drain it.
 * Only its thread touches it. */
#define CG_RCACHE_MAX 256
typedef struct cg_rcache {
    uint32_t n;                 /* ids held                                  */
    uint32_t ids[CG_RCACHE_MAX]; /* free record ids, the newest last         */
} cg_rcache_t;

/* "malloc", "calloc", "realloc", "memalign", "operator new", ... for a
 * CG_KIND_* value. */
const char *cg_kind_name(int kind) CG_HIDDEN;

/* The user pointer of a record's block. */
CG_INLINE void *cg_shadow_user(const cg_shadow_t *r)
{
    return (char *)r->chunk + CG_HDR_SZ + r->lead;
}

/*
 * The shadow lock is taken for call (base/call.h), when call->mt: a report
 * about the lock names that call.  The readers below also take call NULL,
 * for a path that must take no lock (a signal handler's, a walk that holds
 * the lock already, a single-threaded check).
 */

/* A new zeroed record bound to chunk c (heap or big), or NULL when the
 * record slabs cannot grow (out of memory).  Returns its id in *id. */
cg_shadow_t *cg_shadow_new(cg_chunk_t *c, bool big, const cg_call_t *call, uint32_t *id)
    CG_HIDDEN;

/*
 * Guarded blocks (guardpool.h) are bound by page: a 32-bit record id per
 * page of the guard region, so any address in a block's range — its data
 * pages and its guard page — leads to its record.
 *   cg_shadow_pages_init  the region [base, base + bytes): maps the page
 *                         map (address space only, touched where used);
 *                         false when it cannot be mapped.  Once, at init.
 *   cg_shadow_new_pages   a new zeroed record for the block at user whose
 *                         range is pages pages from lo, bound to every one
 *                         of them; NULL when the record slabs cannot grow
 *   cg_shadow_delete_pages unbind and free such a record
 *   cg_shadow_of_page     the record bound to the page holding a (an
 *                         address in the region), or NULL
 *   cg_shadow_in_pages    is a in the guard region?
 */
bool cg_shadow_pages_init(const void *base, size_t bytes) CG_HIDDEN;
cg_shadow_t *cg_shadow_new_pages(void *user, char *lo, uint32_t pages, const cg_call_t *call,
                                 uint32_t *id) CG_HIDDEN;
void cg_shadow_delete_pages(cg_shadow_t *r, const cg_call_t *call) CG_HIDDEN;
cg_shadow_t *cg_shadow_of_page(const void *a) CG_HIDDEN;
extern uintptr_t cg_shadow_pages_lo CG_HIDDEN, cg_shadow_pages_hi CG_HIDDEN;
CG_INLINE bool cg_shadow_in_pages(const void *a)
{
    return (uintptr_t)a - cg_shadow_pages_lo < cg_shadow_pages_hi - cg_shadow_pages_lo;
}

/*
 * cg_shadow_snapshot - a consistent copy of the record r into *out, for a
 * report: the record's state, binding (chunk) and generation are read,
 * then its fields, then the three again; true when none changed and the
 * record was bound and settled (not state 0, being made).  False when the
 * record was unbound, being made, or changed while it was read (its block
 * freed, or the record bound to another block meanwhile): then nothing it
 * held can be trusted to describe one block.  Lock-free and
 * async-signal-safe (reads only): a report may be made while any of our
 * locks is held by the reporting thread.
 */
bool cg_shadow_snapshot(const cg_shadow_t *r, cg_shadow_t *out) CG_HIDDEN;

/* Unbind the record from its chunk and free it. */
void cg_shadow_delete(cg_shadow_t *r, bool big, const cg_call_t *call) CG_HIDDEN;

/* The calling thread exits: the records its cache holds go back to the
 * shared free list. */
void cg_shadow_thread_exit(const cg_call_t *call) CG_HIDDEN;

/*
 * The in-band hint: a debug block's record id, in the 4 bytes after its
 * chunk header (the start of the leading redzone, which is checked from
 * after it: debug.h), so that free reaches the record from the line the
 * header is on instead of through the shadow map (one cache miss, not
 * two).  The hint is only a guess: cg_shadow_of_hint takes it when the
 * record it names is bound to that very chunk, and a hint that does not
 * match its block's record is damage the block's check reports.
 *   cg_shadow_hint      where chunk c's hint is
 *   cg_shadow_of_hint   the record bound to heap chunk c if c's hint names
 *                       it, else NULL (then ask cg_shadow_of: the hint was
 *                       damaged, or c is no debug block).  c may be any
 *                       address in a heap: its hint is read only when a
 *                       whole chunk header can be read there.  No lock.
 */
#define CG_SHADOW_HINT_SZ 4
CG_INLINE uint32_t *cg_shadow_hint(const cg_chunk_t *c)
{
    return (uint32_t *)((char *)c + CG_HDR_SZ);
}
cg_shadow_t *cg_shadow_of_hint(const cg_chunk_t *c) CG_HIDDEN;

/* The record with this id (ids come from cg_shadow_new). */
cg_shadow_t *cg_shadow_at(uint32_t id) CG_HIDDEN;

/* The record bound to chunk c, or NULL.  c must be a heap address (any
 * 16-byte aligned address in one of our heaps) or, with big, the chunk of a
 * live big block.  Reads only our own metadata. */
cg_shadow_t *cg_shadow_of(const cg_chunk_t *c, bool big, const cg_call_t *call) CG_HIDDEN;

/* The record of the block whose chunk contains address a, for reports:
 * heaps through the chunk-start bitmap, big blocks by a walk of their
 * table, guarded blocks by their page (a's page is one of the block's range,
 * guard page included).  NULL when a is in no recorded block. */
cg_shadow_t *cg_shadow_find(const void *a, const cg_call_t *call) CG_HIDDEN;

/* Call fn(record, arg) for every record in use (live or quarantined), in
 * id order.  Takes no lock: for the leak check, which runs when the
 * program has stopped allocating (at exit) or accepts a blurred picture. */
void cg_shadow_each(void (*fn)(cg_shadow_t *r, void *arg), void *arg) CG_HIDDEN;

/* The record of the block that a possibly-interior address a points into,
 * looking back at most max_back bytes for its chunk (heaps; a guarded
 * block: a in the block or at its end) — a cheap lookup for scanning
 * memory for pointers.  NULL when none. */
cg_shadow_t *cg_shadow_find_near(const void *a, size_t max_back) CG_HIDDEN;

/* Live and quarantined records, and record bytes mapped (for statistics
 * and docs/design.md's memory figures). */
void cg_shadow_usage(size_t *records, size_t *bytes) CG_HIDDEN;

/* Fork handlers: the shadow lock is taken after the arena locks.  In a
 * fork child the records the other threads' caches held go back to the
 * free list. */
void cg_shadow_lock_all(const cg_call_t *call) CG_HIDDEN;
void cg_shadow_unlock_all(bool child) CG_HIDDEN;

#endif /* CG_SHADOW_H */
