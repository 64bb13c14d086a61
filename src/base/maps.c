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

/* Decimal digits at *s (the inode); false when there are none. */
static bool parse_dec(const char **s, uint64_t *v)
{
    uint64_t r = 0;
    const char *p = *s;
    for (; *p >= '0' && *p <= '9'; p++)
        r = r * 10 + (uint64_t)(*p - '0');
    bool any = p != *s;
    *s = p;
    *v = r;
    return any;
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
    rd->base_set = false;
    rd->base = 0;
    return rd->fd >= 0;
}

void cg_maps_close(cg_maps_reader_t *rd)
{
    if (rd->fd >= 0)
        close(rd->fd);
    rd->fd = -1;
}

/* The next byte of the file; -1 at its end (or on an error). */
static int next_byte(cg_maps_reader_t *rd)
{
    while (rd->pos == rd->len) {
        ssize_t n = read(rd->fd, rd->buf, sizeof rd->buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        rd->pos = 0;
        rd->len = (size_t)n;
    }
    return (unsigned char)rd->buf[rd->pos++];
}

/* The fields a line has before its path: "lo-hi perms offset dev inode". */
#define HEAD_FIELDS 5
/* Their bytes, with the blanks after them: at most 86 bytes (two 16-digit
 * addresses, a 16-digit offset, a 20-digit inode), padded to 73. */
#define HEAD_MAX 160

/* One line: its first HEAD_FIELDS fields (and the blanks between them)
 * into head[HEAD_MAX], the rest, the path, into path[cap]; each
 * NUL-terminated; *cut when the path (or the head: not a maps line) did
 * not fit.  No line buffer of its own: the path goes where the caller
 * wants it.  False at the end. */
static bool next_line(cg_maps_reader_t *rd, char *head, char *path, size_t cap, bool *cut)
{
    size_t hl = 0, pl = 0;
    int fields = 0;
    bool in_field = false, in_path = false, any = false;
    *cut = false;
    for (;;) {
        int c = next_byte(rd);
        if (c < 0 && !any)
            return false;
        if (c < 0 || c == '\n')
            break;
        any = true;
        /* the path: from the first byte after the head's blanks to the
         * end of the line, blanks in it included */
        in_path = in_path || (fields == HEAD_FIELDS && !in_field && c != ' ');
        if (in_path) {
            if (pl + 1 < cap)
                path[pl++] = (char)c;
            else
                *cut = true;
            continue;
        }
        if (c == ' ') {
            in_field = false;
        } else if (!in_field) {
            in_field = true;
            fields++;
        }
        if (hl + 1 < HEAD_MAX)
            head[hl++] = (char)c;
        else
            *cut = true;
    }
    head[hl] = 0;
    path[pl] = 0;
    return true;
}

bool cg_maps_next_path(cg_maps_reader_t *rd, cg_mapping_t *m, char *path, size_t cap)
{
    /* "lo-hi perms offset major:minor inode   path"; a line that does not
     * parse is skipped */
    char head[HEAD_MAX];
    bool cut;
    if (path == NULL || cap == 0) {
        path = m->path;
        cap = sizeof m->path;
    }
    while (rd->fd >= 0 && next_line(rd, head, path, cap, &cut)) {
        const char *s = head;
        uintptr_t major, minor;
        if (!parse_hex(&s, &m->lo) || *s++ != '-' || !parse_hex(&s, &m->hi) || *s != ' ')
            continue;
        s++;
        for (int i = 0; i < 4; i++)
            m->perms[i] = *s && *s != ' ' ? *s++ : '-';
        m->perms[4] = 0;
        s = skip_field(s);
        if (!parse_hex(&s, &m->file_off))
            continue;
        s = skip_field(s);
        if (!parse_hex(&s, &major) || *s++ != ':' || !parse_hex(&s, &minor))
            continue;
        s = skip_field(s);
        if (!parse_dec(&s, &m->inode))
            continue;
        m->dev = (uint64_t)major << 32 | minor;
        size_t pl = strlen(path);
        m->truncated = cut;
        if (path != m->path) {          /* the first bytes, kept in m too */
            size_t k = pl < sizeof m->path ? pl : sizeof m->path - 1;
            memcpy(m->path, path, k);
            m->path[k] = 0;
        }
        /* the lowest mapping of a file is its base: a file by its device
         * and inode, a pseudo name ([heap], [anon:x]) by that name */
        bool same = rd->base_set && m->dev == rd->base_dev && m->inode == rd->base_inode &&
                    (m->inode != 0 ||
                     strncmp(path, rd->base_pseudo, sizeof rd->base_pseudo - 1) == 0);
        if (pl > 0 && !same) {
            rd->base_set = true;
            rd->base_dev = m->dev;
            rd->base_inode = m->inode;
            rd->base_pseudo[0] = 0;
            if (m->inode == 0) {
                size_t k = pl < sizeof rd->base_pseudo ? pl : sizeof rd->base_pseudo - 1;
                memcpy(rd->base_pseudo, path, k);
                rd->base_pseudo[k] = 0;
            }
            rd->base = m->lo;
        }
        m->base = pl > 0 ? rd->base : m->lo;
        return true;
    }
    return false;
}

bool cg_maps_next(cg_maps_reader_t *rd, cg_mapping_t *m)
{
    return cg_maps_next_path(rd, m, NULL, 0);
}

/* The snapshot: filled by its owner before snap_owner is published,
 * read only by the owner. */
typedef struct snap_entry {
    cg_mapping_t m;
    char path[CG_MAPS_PATH_MAX];    /* the whole path */
} snap_entry_t;
static CG_BIG_BSS snap_entry_t snap[CG_MAPS_SNAP_MAX];   /* reports only */
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
    while (snap_n < CG_MAPS_SNAP_MAX &&
           cg_maps_next_path(&rd, &snap[snap_n].m, snap[snap_n].path, sizeof snap[snap_n].path))
        if (snap[snap_n].m.perms[2] == 'x' && snap[snap_n].path[0] != 0)
            snap_n++;
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

CG_FORK_PATH void cg_maps_after_fork_child(void)
{
    CG_CLEAR_IF_SET(snap_owner);
}

unsigned cg_maps_snapshot_id(void)
{
    return __atomic_load_n(&snap_owner, __ATOMIC_ACQUIRE) == cg_os_gettid() ? snap_id : 0;
}

bool cg_find_mapping_path(uintptr_t a, cg_mapping_t *m, char *path, size_t cap)
{
    if (cg_maps_snapshot_id() != 0)
        for (size_t i = 0; i < snap_n; i++)
            if (a >= snap[i].m.lo && a < snap[i].m.hi) {
                *m = snap[i].m;
                if (path == NULL || cap == 0) {
                    m->truncated = strlen(snap[i].path) >= sizeof m->path;
                } else {
                    size_t n = strlen(snap[i].path);
                    if (n >= cap) {
                        n = cap - 1;
                        m->truncated = true;
                    }
                    memcpy(path, snap[i].path, n);
                    path[n] = 0;
                }
                return true;
            }
    cg_maps_reader_t rd;
    if (!cg_maps_open(&rd))
        return false;
    bool found = false;
    while (!found && cg_maps_next_path(&rd, m, path, cap))
        found = a >= m->lo && a < m->hi;
    cg_maps_close(&rd);
    return found;
}

bool cg_find_mapping(uintptr_t a, cg_mapping_t *m)
{
    return cg_find_mapping_path(a, m, NULL, 0);
}
