/*
 * maps.c — /proc/self/maps, read with open/read into fixed buffers.
 */
#include "maps.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static uintptr_t parse_hex(const char **s)
{
    uintptr_t v = 0;
    for (;; (*s)++) {
        char c = **s;
        if (c >= '0' && c <= '9') v = v * 16 + (uintptr_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (uintptr_t)(c - 'a' + 10);
        else return v;
    }
}

bool cg_maps_open(cg_maps_reader_t *rd)
{
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

/* One line into line (cap bytes, truncated); false at the end. */
static bool next_line(cg_maps_reader_t *rd, char *line, size_t cap)
{
    size_t ll = 0;
    for (;;) {
        if (rd->pos == rd->len) {
            ssize_t n = read(rd->fd, rd->buf, sizeof rd->buf);
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
    }
}

bool cg_maps_next(cg_maps_reader_t *rd, cg_mapping_t *m)
{
    char line[512];
    if (rd->fd < 0 || !next_line(rd, line, sizeof line))
        return false;
    const char *s = line;
    m->lo = parse_hex(&s);
    if (*s == '-')
        s++;
    m->hi = parse_hex(&s);
    while (*s == ' ')
        s++;
    for (int i = 0; i < 4; i++)
        m->perms[i] = *s ? *s++ : '-';
    m->perms[4] = 0;
    const char *path = strchr(s, '/');
    if (path == NULL)
        path = strchr(s, '[');
    size_t pl = path ? strlen(path) : 0;
    if (pl >= sizeof m->path)
        pl = sizeof m->path - 1;
    memcpy(m->path, path ? path : "", pl);
    m->path[pl] = 0;
    if (pl > 0 && strcmp(m->path, rd->base_path) != 0) {
        memcpy(rd->base_path, m->path, pl + 1);
        rd->base = m->lo;            /* the lowest mapping of a file is its base */
    }
    m->base = pl > 0 ? rd->base : m->lo;
    return true;
}

bool cg_find_mapping(uintptr_t a, cg_mapping_t *m)
{
    cg_maps_reader_t rd;
    if (!cg_maps_open(&rd))
        return false;
    bool found = false;
    while (!found && cg_maps_next(&rd, m))
        found = a >= m->lo && a < m->hi;
    cg_maps_close(&rd);
    return found;
}
