/*
 * maps.c — /proc/self/maps, read with open/read into fixed buffers.
 */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Up to 16 hex digits at *s; false when there are none (or too many). */
static bool parse_hex(const char **s, uintptr_t *v)
{
    uintptr_t r = 0;
    const char *p = *s;
    for (int digits = 0;; p++, digits++) {
        char c = *p;
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else {
            *s = p;
            *v = r;
            return digits > 0;
        }
        if (digits >= 16)
            return false;
        r = r * 16 + d;
    }
}

static const char *skip_field(const char *s)
{
    while (*s && *s != ' ')
        s++;
    while (*s == ' ')
        s++;
    return s;
}

bool cg_maps_open(cg_maps_reader_t *rd)
{
    /* the calling thread's view first: once the main thread has called
     * pthread_exit, /proc/self (the thread group leader, a zombie) shows
     * no mappings while the other threads run on */
    rd->fd = open("/proc/thread-self/maps", O_RDONLY | O_CLOEXEC);
    if (rd->fd < 0)
        rd->fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    rd->pos = rd->len = 0;
    rd->base_path[0] = 0;
    rd->base = 0;
    return rd->fd >= 0;
}

void cg_maps_close(cg_maps_reader_t *rd)
{
    if (rd->fd >= 0)
        close(rd->fd);
    rd->fd = -1;
}

/* One line into line (cap bytes; *cut when longer); false at the end. */
static bool next_line(cg_maps_reader_t *rd, char *line, size_t cap, bool *cut)
{
    size_t ll = 0;
    *cut = false;
    for (;;) {
        if (rd->pos == rd->len) {
            ssize_t n = read(rd->fd, rd->buf, sizeof rd->buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                line[ll] = 0;
                return ll > 0;
            }
            rd->pos = 0;
            rd->len = (size_t)n;
        }
        char c = rd->buf[rd->pos++];
        if (c == '\n') {
            line[ll] = 0;
            return true;
        }
        if (ll < cap - 1)
            line[ll++] = c;
        else
            *cut = true;
    }
}

bool cg_maps_next(cg_maps_reader_t *rd, cg_mapping_t *m)
{
    /* "lo-hi perms offset dev inode   path"; a line that does not parse is
     * skipped */
    char line[512];
    bool cut;
    while (rd->fd >= 0 && next_line(rd, line, sizeof line, &cut)) {
        const char *s = line;
        if (!parse_hex(&s, &m->lo) || *s++ != '-' || !parse_hex(&s, &m->hi) || *s != ' ')
            continue;
        s++;
        for (int i = 0; i < 4; i++)
            m->perms[i] = *s && *s != ' ' ? *s++ : '-';
        m->perms[4] = 0;
        s = skip_field(s);
        if (!parse_hex(&s, &m->file_off))
            continue;
        s = skip_field(skip_field(skip_field(s)));     /* offset, dev, inode */
        size_t pl = strlen(s);
        m->truncated = cut;
        if (pl >= sizeof m->path) {
            pl = sizeof m->path - 1;
            m->truncated = true;
        }
        memcpy(m->path, s, pl);
        m->path[pl] = 0;
        if (pl > 0 && strcmp(m->path, rd->base_path) != 0) {
            memcpy(rd->base_path, m->path, pl + 1);
            rd->base = m->lo;        /* the lowest mapping of a file is its base */
        }
        m->base = pl > 0 ? rd->base : m->lo;
        return true;
    }
    return false;
}

/* The snapshot: filled by its owner before snap_owner is published,
 * read only by the owner. */
static CG_BIG_BSS cg_mapping_t snap[CG_MAPS_SNAP_MAX];   /* reports only */
static size_t snap_n;
static uint32_t snap_owner;         /* tid, 0: none */
static unsigned snap_id;

bool cg_maps_snapshot_begin(void)
{
    uint32_t me = cg_os_gettid(), none = 0;
    if (!__atomic_compare_exchange_n(&snap_owner, &none, UINT32_MAX, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return false;               /* held (UINT32_MAX: being filled) */
    cg_maps_reader_t rd;
    if (!cg_maps_open(&rd)) {
        __atomic_store_n(&snap_owner, 0, __ATOMIC_RELEASE);
        return false;
    }
    snap_n = 0;
    cg_mapping_t m;
    while (snap_n < CG_MAPS_SNAP_MAX && cg_maps_next(&rd, &m))
        if (m.perms[2] == 'x' && m.path[0] != 0)
            snap[snap_n++] = m;
    cg_maps_close(&rd);
    if (++snap_id == 0)
        snap_id = 1;
    __atomic_store_n(&snap_owner, me, __ATOMIC_RELEASE);
    return true;
}

void cg_maps_snapshot_end(void)
{
    if (__atomic_load_n(&snap_owner, __ATOMIC_ACQUIRE) == cg_os_gettid())
        __atomic_store_n(&snap_owner, 0, __ATOMIC_RELEASE);
}

void cg_maps_after_fork_child(void)
{
    __atomic_store_n(&snap_owner, 0, __ATOMIC_RELAXED);
}

unsigned cg_maps_snapshot_id(void)
{
    return __atomic_load_n(&snap_owner, __ATOMIC_ACQUIRE) == cg_os_gettid() ? snap_id : 0;
}

bool cg_find_mapping(uintptr_t a, cg_mapping_t *m)
{
    if (cg_maps_snapshot_id() != 0)
        for (size_t i = 0; i < snap_n; i++)
            if (a >= snap[i].lo && a < snap[i].hi) {
                *m = snap[i];
                return true;
            }
    cg_maps_reader_t rd;
    if (!cg_maps_open(&rd))
        return false;
    bool found = false;
    while (!found && cg_maps_next(&rd, m))
        found = a >= m->lo && a < m->hi;
    cg_maps_close(&rd);
    return found;
}
