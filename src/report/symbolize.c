/*
 * symbolize.c — module, offset and function name of a code address, with
 * no malloc (see symbolize.h).
 *
 * The module and the address's file offset come from /proc/self/maps
 * (maps.c).
 * The file offset of the address, mapped through the module's PT_LOAD
 * program headers, gives its ELF virtual address; the function is the
 * STT_FUNC (or IFUNC) symbol of .symtab, else of .dynsym, whose
 * [st_value, st_value + st_size) holds it.  The ELF file is mapped
 * read-only; every header, table and string is bounds-checked against the
 * file's size and copied out with memcpy (a corrupt offset may be
 * misaligned), and every loop is bounded by a count checked against that
 * size.
 */
#define _GNU_SOURCE
#include "symbolize.h"

#include "lock.h"

#include "maps.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

/* ---- ELF files ------------------------------------------------------------ */

typedef struct elf_img {
    const unsigned char *p;   /* the whole file, mapped read-only */
    size_t size;              /* its size in bytes                */
} elf_img_t;

static bool in_file(const elf_img_t *e, uint64_t off, uint64_t len)
{
    return off <= e->size && len <= e->size - off;
}

static bool elf_header(const elf_img_t *e, Elf64_Ehdr *h)
{
    if (!in_file(e, 0, sizeof *h))
        return false;
    memcpy(h, e->p, sizeof *h);
    return memcmp(h->e_ident, ELFMAG, SELFMAG) == 0 && h->e_ident[EI_CLASS] == ELFCLASS64 &&
           h->e_ident[EI_DATA] == ELFDATA2LSB;
}

/* File offset -> virtual address, through the PT_LOAD segment holding it. */
static bool elf_off_to_vaddr(const elf_img_t *e, const Elf64_Ehdr *h, uint64_t off,
                             uint64_t *va)
{
    if (h->e_phentsize != sizeof(Elf64_Phdr) ||
        !in_file(e, h->e_phoff, (uint64_t)h->e_phnum * sizeof(Elf64_Phdr)))
        return false;
    for (size_t i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, e->p + h->e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD && off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
            *va = off - ph.p_offset + ph.p_vaddr;
            return true;
        }
    }
    return false;
}

/* Copy a string of a string table out, bounded by the table and by cap. */
static size_t copy_str(char *dst, size_t cap, const char *src, uint64_t avail)
{
    size_t n = 0;
    while (n + 1 < cap && n < avail && src[n] != 0) {
        dst[n] = src[n];
        n++;
    }
    if (cap)
        dst[n] = 0;
    return n;
}

/* The function symbol of a table of type sh_type (SHT_SYMTAB, SHT_DYNSYM)
 * that covers va.  True with its name in name[cap]. */
static bool elf_lookup(const elf_img_t *e, const Elf64_Ehdr *h, uint32_t sh_type, uint64_t va,
                       char *name, size_t cap)
{
    if (h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shnum == 0 ||
        !in_file(e, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr)))
        return false;
    const unsigned char *shdrs = e->p + h->e_shoff;
    for (size_t i = 0; i < h->e_shnum; i++) {
        Elf64_Shdr sh, str;
        memcpy(&sh, shdrs + i * sizeof sh, sizeof sh);
        if (sh.sh_type != sh_type || sh.sh_entsize != sizeof(Elf64_Sym) ||
            !in_file(e, sh.sh_offset, sh.sh_size) || sh.sh_link >= h->e_shnum)
            continue;
        memcpy(&str, shdrs + (size_t)sh.sh_link * sizeof str, sizeof str);
        if (str.sh_type != SHT_STRTAB || !in_file(e, str.sh_offset, str.sh_size))
            continue;
        const char *strtab = (const char *)e->p + str.sh_offset;
        size_t nsym = sh.sh_size / sizeof(Elf64_Sym);
        for (size_t j = 1; j < nsym; j++) {
            Elf64_Sym s;
            memcpy(&s, e->p + sh.sh_offset + j * sizeof s, sizeof s);
            unsigned type = ELF64_ST_TYPE(s.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
                va < s.st_value)
                continue;
            if (s.st_size != 0 ? va - s.st_value >= s.st_size : va != s.st_value)
                continue;
            if (s.st_name >= str.sh_size)
                continue;
            if (copy_str(name, cap, strtab + s.st_name, str.sh_size - s.st_name) > 0)
                return true;
        }
    }
    return false;
}

/* C++'s operator new and delete, every form (chunkguard exports them,
 * entry/interpose.c; so do libstdc++ and programs with their own), by
 * their Itanium ABI manglings on x86_64, demangled as c++filt prints
 * them.  A general demangler (libstdc++'s __cxa_demangle) allocates and
 * lives in the C++ runtime; these are the names a heap report meets. */
static const char *const cxx_operators[][2] = {
    { "_Znwm", "operator new(unsigned long)" },
    { "_Znam", "operator new[](unsigned long)" },
    { "_ZnwmRKSt9nothrow_t", "operator new(unsigned long, std::nothrow_t const&)" },
    { "_ZnamRKSt9nothrow_t", "operator new[](unsigned long, std::nothrow_t const&)" },
    { "_ZnwmSt11align_val_t", "operator new(unsigned long, std::align_val_t)" },
    { "_ZnamSt11align_val_t", "operator new[](unsigned long, std::align_val_t)" },
    { "_ZnwmSt11align_val_tRKSt9nothrow_t",
      "operator new(unsigned long, std::align_val_t, std::nothrow_t const&)" },
    { "_ZnamSt11align_val_tRKSt9nothrow_t",
      "operator new[](unsigned long, std::align_val_t, std::nothrow_t const&)" },
    { "_ZdlPv", "operator delete(void*)" },
    { "_ZdaPv", "operator delete[](void*)" },
    { "_ZdlPvm", "operator delete(void*, unsigned long)" },
    { "_ZdaPvm", "operator delete[](void*, unsigned long)" },
    { "_ZdlPvRKSt9nothrow_t", "operator delete(void*, std::nothrow_t const&)" },
    { "_ZdaPvRKSt9nothrow_t", "operator delete[](void*, std::nothrow_t const&)" },
    { "_ZdlPvSt11align_val_t", "operator delete(void*, std::align_val_t)" },
    { "_ZdaPvSt11align_val_t", "operator delete[](void*, std::align_val_t)" },
    { "_ZdlPvmSt11align_val_t", "operator delete(void*, unsigned long, std::align_val_t)" },
    { "_ZdaPvmSt11align_val_t", "operator delete[](void*, unsigned long, std::align_val_t)" },
    { "_ZdlPvSt11align_val_tRKSt9nothrow_t",
      "operator delete(void*, std::align_val_t, std::nothrow_t const&)" },
    { "_ZdaPvSt11align_val_tRKSt9nothrow_t",
      "operator delete[](void*, std::align_val_t, std::nothrow_t const&)" },
};

static void set_str(char *dst, size_t cap, const char *s);

/* name (a symbol, cap bytes of room) demangled when it is one of them. */
static void demangle_operator(char *name, size_t cap)
{
    if (name[0] != '_' || name[1] != 'Z' || (name[2] != 'n' && name[2] != 'd'))
        return;
    for (size_t i = 0; i < sizeof cxx_operators / sizeof cxx_operators[0]; i++)
        if (strcmp(name, cxx_operators[i][0]) == 0) {
            set_str(name, cap, cxx_operators[i][1]);
            return;
        }
}

static bool elf_function(const elf_img_t *e, const Elf64_Ehdr *h, uint64_t va, char *name,
                         size_t cap)
{
    bool found = elf_lookup(e, h, SHT_SYMTAB, va, name, cap) ||
                 elf_lookup(e, h, SHT_DYNSYM, va, name, cap);
    if (found)
        demangle_operator(name, cap);
    return found;
}

/* ---- mapped files and their cache ---------------------------------------- */

#define CACHE_SLOTS 4

typedef struct cached_elf {
    cg_os_file_id_t id;         /* the file mapped, as it was then */
    const unsigned char *img;   /* NULL: empty slot */
} cached_elf_t;

static cg_lock_t cache_lock = CG_LOCK_INIT(CG_LK_SYMCACHE);   /* tried, never waited for */
static cached_elf_t cache[CACHE_SLOTS];
static unsigned cache_victim;

/* A mapped ELF file in use: from the cache (cache lock held until
 * elf_release) or private (unmapped at release). */
typedef struct elf_ref {
    elf_img_t img;
    bool cached;
} elf_ref_t;

/* Fork handlers: the cache lock is only ever tried, so a child that
 * inherited it taken would never use the cache again. */
void cg_symbolize_lock_all(void) { cg_lock(&cache_lock); }

void cg_symbolize_unlock_all(bool child)
{
    cg_lock_after_fork(&cache_lock, child);
}

static bool same_file(const cached_elf_t *c, const cg_os_file_id_t *id)
{
    return c->img != NULL && c->id.dev == id->dev && c->id.ino == id->ino &&
           c->id.size == id->size && c->id.mtime_sec == id->mtime_sec &&
           c->id.mtime_nsec == id->mtime_nsec;
}

static bool elf_acquire(const char *path, elf_ref_t *ref)
{
    cg_os_file_id_t id;
    int fd = cg_os_open_file(path, &id);
    if (fd < 0)
        return false;
    ref->img.size = id.size;
    ref->cached = cg_trylock(&cache_lock);
    if (ref->cached) {
        for (unsigned i = 0; i < CACHE_SLOTS; i++) {
            if (same_file(&cache[i], &id)) {
                ref->img.p = cache[i].img;
                cg_os_close(fd);
                return true;
            }
        }
    }
    const void *p = cg_os_map_fd(fd, ref->img.size);
    cg_os_close(fd);
    if (p == NULL) {
        if (ref->cached)
            cg_unlock(&cache_lock);
        return false;
    }
    ref->img.p = p;
    if (ref->cached) {
        cached_elf_t *c = &cache[cache_victim++ % CACHE_SLOTS];
        if (c->img != NULL)
            cg_os_unmap((void *)c->img, c->id.size);
        c->id = id;
        c->img = p;
    }
    return true;
}

static void elf_release(elf_ref_t *ref)
{
    if (ref->cached)
        cg_unlock(&cache_lock);
    else
        cg_os_unmap((void *)ref->img.p, ref->img.size);
}

/* ---- the API -------------------------------------------------------------- */

static void set_str(char *dst, size_t cap, const char *s)
{
    copy_str(dst, cap, s, (uint64_t)-1);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

bool cg_symbolize_frame(uintptr_t pc, bool is_return, cg_frame_t *out)
{
    int saved = errno;
    uintptr_t look = is_return && pc != 0 ? pc - 1 : pc;
    cg_mapping_t m;
    out->function[0] = 0;
    out->offset = pc;
    out->in_module = cg_find_mapping(look, &m);
    if (!out->in_module) {
        set_str(out->module, sizeof out->module, "<unknown module>");
        errno = saved;
        return false;
    }
    if (m.path[0] == 0) {
        set_str(out->module, sizeof out->module, "<anonymous>");
        out->offset = pc - m.lo;
        errno = saved;
        return false;
    }
    set_str(out->module, sizeof out->module, m.path);
    out->offset = pc - m.base;
    bool named = false;
    elf_ref_t ref;
    if (m.path[0] == '/' && !m.truncated && !ends_with(m.path, " (deleted)") &&
        elf_acquire(m.path, &ref)) {
        Elf64_Ehdr h;
        uint64_t va;
        if (elf_header(&ref.img, &h) &&
            elf_off_to_vaddr(&ref.img, &h, (uint64_t)(look - m.lo) + m.file_off, &va)) {
            out->offset = (uintptr_t)va + (pc - look);
            named = elf_function(&ref.img, &h, va, out->function, sizeof out->function);
        }
        elf_release(&ref);
    }
    errno = saved;
    return named;
}

/* "func (module+0xoff)" / "(module+0xoff)" / "(<unknown module>)". */
static size_t format_frame(char *buf, size_t cap, const cg_frame_t *f)
{
    if (!f->in_module)
        return cg_fmt(buf, cap, "(%s)", f->module);
    if (f->function[0])
        return cg_fmt(buf, cap, "%s (%s+0x%x)", f->function, f->module, (size_t)f->offset);
    return cg_fmt(buf, cap, "(%s+0x%x)", f->module, (size_t)f->offset);
}

size_t cg_symbolize(uintptr_t pc, char *buf, size_t cap)
{
    cg_frame_t f;
    cg_symbolize_frame(pc, false, &f);
    return format_frame(buf, cap, &f);
}

size_t cg_format_stack(char *buf, size_t cap, const uintptr_t *pcs, size_t n, bool exact0)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    buf[0] = 0;
    for (size_t i = 0; i < n; i++) {
        cg_frame_t f;
        char line[CG_SYM_MODULE_MAX + CG_SYM_FUNC_MAX + 64];
        cg_symbolize_frame(pcs[i], i > 0 || !exact0, &f);
        size_t l = cg_fmt(line, sizeof line, "    #%zu %p %s", i, (void *)pcs[i],
                          f.function[0] ? "in " : "");
        l += format_frame(line + l, sizeof line - l, &f);
        l += cg_fmt(line + l, sizeof line - l, "\n");
        if (len + l >= cap)
            break;
        memcpy(buf + len, line, l + 1);
        len += l;
    }
    return len;
}

size_t cg_symbolize_file(const char *path, uintptr_t vaddr, char *buf, size_t cap)
{
    int saved = errno;
    cg_frame_t f;
    f.in_module = true;
    f.offset = vaddr;
    f.function[0] = 0;
    set_str(f.module, sizeof f.module, path);
    elf_ref_t ref;
    if (elf_acquire(path, &ref)) {
        Elf64_Ehdr h;
        if (elf_header(&ref.img, &h))
            elf_function(&ref.img, &h, vaddr, f.function, sizeof f.function);
        elf_release(&ref);
    }
    errno = saved;
    return format_frame(buf, cap, &f);
}
