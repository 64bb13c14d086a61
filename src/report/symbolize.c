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

#include "fmt.h"

#include "lock.h"

#include "maps.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
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
                       char *name, size_t cap, const char **full)
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
            const char *at = strtab + s.st_name;
            uint64_t avail = str.sh_size - s.st_name;
            if (copy_str(name, cap, at, avail) > 0) {
                /* the whole name, when the table ends it within
                 * CG_DEMANGLE_MAX bytes: name is cut at cap */
                *full = memchr(at, 0, avail < CG_DEMANGLE_MAX + 1 ? avail : CG_DEMANGLE_MAX + 1)
                            ? at : NULL;
                return true;
            }
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
#define CG_CXX_OP(name, ret, params, args, kind, family, serves, demangled) { #name, demangled },
#include "cxxops.def"
#undef CG_CXX_OP
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

/* The function covering va: its table name in sym[cap], demangled (the
 * operators by their table, the rest by cg_demangle) in name[cap]. */
static bool elf_function(const elf_img_t *e, const Elf64_Ehdr *h, uint64_t va, char *sym,
                         char *name, size_t cap)
{
    const char *full = NULL;     /* sym uncut, in the image */
    bool found = elf_lookup(e, h, SHT_SYMTAB, va, sym, cap, &full) ||
                 elf_lookup(e, h, SHT_DYNSYM, va, sym, cap, &full);
    if (!found)
        return false;
    set_str(name, cap, sym);
    demangle_operator(name, cap);
    if (strcmp(name, sym) == 0 && !cg_demangle(full != NULL ? full : sym, name, cap))
        set_str(name, cap, sym);
    return true;
}

/* ---- mapped files and their cache ---------------------------------------- */

#define CACHE_SLOTS 4

typedef struct cached_elf {
    cg_os_file_id_t id;         /* the file mapped, as it was then */
    const unsigned char *img;   /* NULL: empty slot */
    unsigned snap;              /* cg_maps_snapshot_id when path was last
                                 * opened and found to be this file     */
    char path[CG_MAPS_PATH_MAX];   /* that path                         */
} cached_elf_t;

static cg_lock_t cache_lock = CG_LOCK_INIT(CG_LK_SYMCACHE);   /* tried, never waited for */
static cached_elf_t cache[CACHE_SLOTS];
static int sym_busy CG_FORK_DATA;        /* a batch (below) is open: tried, never waited for */
static unsigned cache_victim;

/* A mapped ELF file in use: from the cache (cache lock held until
 * elf_release) or private (unmapped at release). */
typedef struct elf_ref {
    elf_img_t img;
    bool cached;
} elf_ref_t;

/* Fork handlers: the cache lock is only ever tried, so a child that
 * inherited it taken would never use the cache again. */
CG_FORK_PATH void cg_symbolize_lock_all(const cg_call_t *call) { cg_lock_for(&cache_lock, call); }

CG_FORK_PATH void cg_symbolize_unlock_all(bool child)
{
    cg_lock_after_fork(&cache_lock, child);
    /* a batch another thread had open is not the child's (stored only
     * when set: an unwritten page is not copied for the child) */
    if (child && __atomic_load_n(&sym_busy, __ATOMIC_RELAXED) != 0)
        __atomic_store_n(&sym_busy, 0, __ATOMIC_RELAXED);
}

static bool same_file(const cached_elf_t *c, const cg_os_file_id_t *id)
{
    return c->img != NULL && c->id.dev == id->dev && c->id.ino == id->ino &&
           c->id.size == id->size && c->id.mtime_sec == id->mtime_sec &&
           c->id.mtime_nsec == id->mtime_nsec;
}

/* Slot c holds path, as opened during snapshot sid. */
static void note_path(cached_elf_t *c, const char *path, unsigned sid)
{
    size_t n = strlen(path);
    c->snap = n < sizeof c->path ? sid : 0;
    if (n < sizeof c->path)
        memcpy(c->path, path, n + 1);
}

static bool elf_acquire(const char *path, elf_ref_t *ref)
{
    /* within one maps snapshot (one report) a path already opened is
     * taken to be the same file: no open(2) a frame */
    unsigned sid = cg_maps_snapshot_id();
    if (sid != 0 && cg_trylock(&cache_lock)) {
        for (unsigned i = 0; i < CACHE_SLOTS; i++)
            if (cache[i].img != NULL && cache[i].snap == sid && strcmp(cache[i].path, path) == 0) {
                ref->img.p = cache[i].img;
                ref->img.size = cache[i].id.size;
                ref->cached = true;
                return true;
            }
        cg_unlock(&cache_lock);
    }
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
                note_path(&cache[i], path, sid);
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
        note_path(c, path, sid);
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

/* ---- out of process: a batch of a report's frames ------------------------ */

/*
 * One helper process per report (symbolize.h, "Batches"): the frames'
 * module+offset pairs go to llvm-symbolizer's stdin, one a line, and its
 * answers (a "function\nfile:line:column\n" pair per frame, the innermost
 * inlined one first, then an empty line) come back into sym_out, which
 * the frames' strings then point into.  addr2line takes one module per
 * run: it is run once per module of the batch, with -a so that each
 * answer starts with its address.  Everything is static: a batch is
 * open in one thread at a time (sym_busy), tried, never waited for.
 */
#define SYM_ENTRIES 2048            /* distinct addresses of a batch          */
#define SYM_FRAMES 8192             /* their frames, inlined ones included    */
#define SYM_MODULES 64              /* distinct modules of a batch            */
#define SYM_IN_MAX (192 * 1024)     /* the helper's input                     */
#define SYM_OUT_MAX (512 * 1024)    /* its answers                            */
#define SYM_TIMEOUT_MS 5000         /* for the whole batch, every helper run  */

typedef struct sym_entry {
    uintptr_t look;         /* the address looked up (a return's call site)  */
    uintptr_t off;          /* look's ELF virtual address in its module      */
    uint16_t mod;           /* its module, an index of sym_mods              */
    uint16_t nframes;       /* frames of its answer (0: none), from first    */
    uint32_t first;         /* its first frame in sym_frames                 */
} sym_entry_t;

static CG_BIG_BSS sym_entry_t sym_tab[SYM_ENTRIES];
static CG_BIG_BSS cg_sym_inline_t sym_frames[SYM_FRAMES];
static CG_BIG_BSS char sym_mods[SYM_MODULES][CG_SYM_MODULE_MAX];
static CG_BIG_BSS char sym_in[SYM_IN_MAX];
static CG_BIG_BSS char sym_out[SYM_OUT_MAX];
static size_t sym_n, sym_nframes, sym_nmods, sym_outlen;
static uint32_t sym_owner;          /* the kernel tid of the thread whose it is */
static int sym_pid = -1, sym_fd;    /* the helper running now (run_helper)      */

static bool batch_mine(void)
{
    return __atomic_load_n(&sym_busy, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&sym_owner, __ATOMIC_RELAXED) == cg_os_gettid();
}

bool cg_sym_batch_begin(void)
{
    if (!cg_opt.symbolize || __atomic_exchange_n(&sym_busy, 1, __ATOMIC_ACQUIRE))
        return false;
    __atomic_store_n(&sym_owner, cg_os_gettid(), __ATOMIC_RELAXED);
    sym_n = sym_nframes = sym_nmods = sym_outlen = 0;
    return true;
}

void cg_sym_batch_end(void)
{
    if (!batch_mine())
        return;
    /* ended in the middle of a helper's run (a signal handler that exits,
     * cg_render_finish): the helper is killed, not left behind */
    int pid = __atomic_exchange_n(&sym_pid, -1, __ATOMIC_ACQ_REL);
    if (pid >= 0)
        cg_os_coproc_end(pid, sym_fd, false);
    __atomic_store_n(&sym_owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&sym_busy, 0, __ATOMIC_RELEASE);
}

static const sym_entry_t *sym_find(uintptr_t look)
{
    if (!batch_mine())
        return NULL;
    for (size_t i = 0; i < sym_n; i++)
        if (sym_tab[i].look == look)
            return &sym_tab[i];
    return NULL;
}

void cg_sym_batch_add(const uintptr_t *pcs, size_t n, bool exact0)
{
    if (!batch_mine())
        return;
    int saved = errno;
    for (size_t i = 0; i < n && sym_n < SYM_ENTRIES; i++) {
        bool ret = i > 0 || !exact0;
        uintptr_t look = ret ? cg_call_site(pcs[i]) : pcs[i];
        cg_frame_t f;
        if (sym_find(look) != NULL)
            continue;
        cg_symbolize_frame(pcs[i], ret, &f);
        /* only files by absolute path (any bytes in it: llvm_quote) */
        if (!f.in_module || f.module[0] != '/' || ends_with(f.module, " (deleted)"))
            continue;
        size_t m = 0;
        while (m < sym_nmods && strcmp(sym_mods[m], f.module) != 0)
            m++;
        if (m == sym_nmods) {
            if (sym_nmods == SYM_MODULES)
                continue;
            set_str(sym_mods[sym_nmods++], CG_SYM_MODULE_MAX, f.module);
        }
        sym_tab[sym_n++] = (sym_entry_t){ .look = look, .off = f.offset,
                                          .mod = (uint16_t)m };
    }
    errno = saved;
}

/* "file:line[:column][ (discriminator N)]" -> file (NUL-cut in place, NULL
 * for "??") and line (0: not known). */
static void parse_location(char *loc, bool column, const char **file, uint32_t *line)
{
    char *d = strstr(loc, " (discriminator ");
    if (d != NULL)
        *d = 0;
    *file = NULL;
    *line = 0;
    for (int part = column ? 2 : 1; part > 0; part--) {
        char *c = strrchr(loc, ':');
        if (c == NULL)
            return;
        *c = 0;
        if (part == 1) {
            uint32_t v = 0;
            for (const char *q = c + 1; *q >= '0' && *q <= '9'; q++)
                v = v * 10 + (uint32_t)(*q - '0');
            *line = v;
        }
    }
    if (loc[0] != 0 && strcmp(loc, "??") != 0)
        *file = loc;
}

/* Next line of [*p, end): NUL-terminated in place; NULL at the end (an
 * unterminated last line is not an answer: the helper was cut short). */
static char *next_line(char **p, char *end)
{
    char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
    if (s >= end || nl == NULL)
        return NULL;
    *nl = 0;
    *p = nl + 1;
    return s;
}

static bool is_hex_addr(const char *s)
{
    if (s[0] != '0' || s[1] != 'x' || s[2] == 0)
        return false;
    for (s += 2; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return false;
    return true;
}

/* The longest function name or file an answer may give (bytes). */
#define SYM_TEXT_MAX 4096

/* Printable ASCII, 1 to SYM_TEXT_MAX bytes: what a function name or path
 * from the helper must be to reach the report (no control bytes, escape
 * sequences or binary from a helper gone wrong). */
static bool text_ok(const char *s)
{
    size_t n = 0;
    for (; s[n] != 0; n++)
        if (n == SYM_TEXT_MAX || (unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e)
            return false;
    return n > 0;
}

/* [s, e) is 1 to 9 decimal digits. */
static bool digits_ok(const char *s, const char *e)
{
    if (e <= s || e - s > 9)
        return false;
    for (; s < e; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The shape of a location line: "file:line:column" (llvm-symbolizer) or
 * "file:line" (addr2line, whose unknown line is "?"), either followed by
 * " (discriminator N)"; the numbers decimal, the file text_ok (it may be
 * "??"). */
static bool location_ok(const char *loc, bool column)
{
    if (!text_ok(loc))
        return false;
    const char *end = loc + strlen(loc);
    const char *d = strstr(loc, " (discriminator ");
    if (d != NULL) {
        if (end[-1] != ')' || !digits_ok(d + 16, end - 1))
            return false;
        end = d;
    }
    for (int part = column ? 2 : 1; part > 0; part--) {
        const char *c = end;
        while (c > loc && c[-1] != ':')
            c--;
        if (c == loc || !(digits_ok(c, end) || (!column && c + 1 == end && *c == '?')))
            return false;
        end = c - 1;
    }
    return end > loc;
}

/* One answer into e: function/location pairs up to the empty line
 * (llvm-symbolizer) or the next address line (addr2line -a: *p is then
 * left at it).  Pairs whose function and file are both unknown count as
 * no answer.  False, with no answer kept, when a line is not of the
 * protocol's shape (text_ok, location_ok): the helper is not what it
 * should be, and the caller reads nothing more of it. */
static bool parse_answer(sym_entry_t *e, char **p, char *end, bool llvm)
{
    e->first = (uint32_t)sym_nframes;
    e->nframes = 0;
    bool known = false;
    for (;;) {
        char *save = *p, *fn = next_line(p, end);
        if (fn == NULL || (llvm && fn[0] == 0))
            break;
        if (!llvm && is_hex_addr(fn)) {
            *p = save;              /* the next answer's address */
            fn[strlen(fn)] = '\n';
            break;
        }
        char *loc = next_line(p, end);
        if (loc == NULL || sym_nframes == SYM_FRAMES)
            break;
        if (!text_ok(fn) || !location_ok(loc, llvm)) {
            sym_nframes = e->first;
            e->nframes = 0;
            return false;
        }
        cg_sym_inline_t *fr = &sym_frames[sym_nframes++];
        fr->function = strcmp(fn, "??") == 0 || fn[0] == 0 ? NULL : fn;
        parse_location(loc, llvm, &fr->file, &fr->line);
        known |= fr->function != NULL || fr->file != NULL;
        e->nframes++;
    }
    if (!known) {
        sym_nframes = e->first;
        e->nframes = 0;
    }
    return true;
}

/* Has the helper answered every request (cg_os_coproc_exchange's
 * complete)?  Counted on whole lines of its output as they come, so
 * that a helper which leaves a process holding its output open (a
 * script's daemon) costs nothing: llvm-symbolizer ends each answer with
 * an empty line; addr2line -a starts each with its address, and one
 * more request, an address nobody asked about, follows the last one, so
 * that its address line ends the last real answer. */
typedef struct sym_count {
    bool llvm;
    size_t want, seen, scanned;
} sym_count_t;

static bool answered(const char *out, size_t got, void *arg)
{
    sym_count_t *c = arg;
    for (;;) {
        const char *s = out + c->scanned, *nl = memchr(s, '\n', got - c->scanned);
        if (nl == NULL)
            break;
        size_t len = (size_t)(nl - s);
        bool addr = len > 2 && s[0] == '0' && s[1] == 'x';
        for (size_t i = 2; addr && i < len; i++)
            addr = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
        if (c->llvm ? len == 0 : addr)
            c->seen++;
        c->scanned += len + 1;
    }
    return c->seen >= c->want;
}

/*
 * The one decision, for every report of the process (fatal ones, those
 * halt_on_error=0 goes on from, leak reports): once a run of the helper
 * has not answered by its deadline, or could not be started (no process,
 * or it ended without a byte of answer: an execve that failed, a helper
 * that exits at once), no later batch runs it — a hung symbolizer would
 * cost every report its whole deadline (20 reports, 100 s).  Those
 * reports get the ELF symbol tables' names, as with symbolize=0; one
 * WARNING line on the log, when the decision is made (before the report
 * whose batch made it), says so: which program, and what went wrong
 * (for a timeout, the deadline in ms).  A fork child inherits the
 * decision.
 */
static int sym_given_up;
static uint64_t sym_batch_ms;           /* the batch's deadline, in ms      */

static void give_up(const char *path, const char *why)
{
    if (__atomic_exchange_n(&sym_given_up, 1, __ATOMIC_ACQ_REL))
        return;
    char line[CG_FMT_NAME_MAX + 320];
    size_t n = cg_fmt(line, sizeof line,
                      "==%d==WARNING: chunkguard: symbolization given up: the symbolizer %N %s",
                      cg_os_getpid(), path, why);
    if (strcmp(why, "did not answer in time") == 0)
        n += cg_fmt(line + n, sizeof line - n, " (%zu ms)", (size_t)sym_batch_ms);
    n += cg_fmt(line + n, sizeof line - n, "; the reports that follow are not symbolized "
                "(function names from the symbol tables, module+offset; no file:line)\n");
    cg_log_write(line, n);
}

/* llvm-symbolizer reads its input a line at a time into 1024 bytes
 * (kMaxInputStringLength, the newline and NUL included): a longer line
 * is split, and the module named by neither piece. */
#define LLVM_LINE_MAX 1022

/* The quote that llvm-symbolizer's CODE "module" line can put around
 * module m: '"', else '\'' when m holds a '"' (the symbolizer reads to the
 * next quote of the same kind, with no escapes), else 0 (m holds both, or
 * a newline, which would end the line, or is too long a path for a line,
 * LLVM_LINE_MAX): m then gets a run of its own, named by --obj= on the
 * command line (which takes any path), its lines the offsets alone. */
static char llvm_quote(int m)
{
    const char *s = sym_mods[m];
    /* "CODE q" path "q 0x" and 16 digits */
    if (strchr(s, '\n') != NULL || strlen(s) + 26 > LLVM_LINE_MAX)
        return 0;
    if (strchr(s, '"') == NULL)
        return '"';
    return strchr(s, '\'') == NULL ? '\'' : 0;
}

/* Whether entry e goes to the run for mod: llvm-symbolizer's run of
 * every module (mod < 0) takes those llvm_quote can quote, a run of one
 * module its own. */
static bool in_run(const sym_entry_t *e, bool llvm, int mod)
{
    if (mod >= 0)
        return e->mod == mod;
    return !llvm || llvm_quote(e->mod) != 0;
}

/* One run of the helper at path: entries of module mod (or, for
 * llvm-symbolizer, mod < 0: every entry whose module can be quoted) in,
 * answers parsed into them. */
static void run_helper(const char *path, bool llvm, int mod, uint64_t deadline)
{
    static char obj[CG_SYM_MODULE_MAX + 8];     /* --obj=MODULE (under the batch) */
    if (llvm && mod >= 0)
        cg_fmt(obj, sizeof obj, "--obj=%s", sym_mods[mod]);
    const char *argv_llvm[] = { path, "--inlining", "--demangle", "--functions=linkage",
                                mod >= 0 ? obj : NULL, NULL };
    const char *argv_a2l[] = { path, "-a", "-f", "-i", "-C", "-e", mod >= 0 ? sym_mods[mod] : "",
                               NULL };
    size_t inlen = 0, first = sym_n, asked = 0;
    for (size_t i = 0; i < sym_n; i++) {
        const sym_entry_t *e = &sym_tab[i];
        if (!in_run(e, llvm, mod))
            continue;
        char line[CG_SYM_MODULE_MAX + 48];
        char q = llvm_quote(e->mod);
        size_t l = llvm && mod < 0
                       ? cg_fmt(line, sizeof line, "CODE %c%s%c 0x%x\n", q, sym_mods[e->mod], q,
                                (size_t)e->off)
                       : cg_fmt(line, sizeof line, "0x%x\n", (size_t)e->off);
        if (inlen + l > sizeof sym_in)
            break;
        memcpy(sym_in + inlen, line, l);
        inlen += l;
        asked++;
        if (first == sym_n)
            first = i;
    }
    if (inlen == 0)
        return;
    if (!llvm) {                        /* the end marker (answered) */
        if (inlen + 4 > sizeof sym_in) {
            inlen -= 1;                 /* no room: the last request goes */
            while (inlen > 0 && sym_in[inlen - 1] != '\n')
                inlen--;
            if (--asked == 0)
                return;
        }
        memcpy(sym_in + inlen, "0x0\n", 4);
        inlen += 4;
    }
    sym_count_t count = { llvm, llvm ? asked : asked + 1, 0, 0 };
    int fd;
    int pid = cg_os_coproc_start(path, llvm ? argv_llvm : argv_a2l, &fd);
    if (pid < 0) {
        give_up(path, "could not be started");
        return;
    }
    bool done;
    sym_fd = fd;
    __atomic_store_n(&sym_pid, pid, __ATOMIC_RELEASE);
    size_t got = cg_os_coproc_exchange(fd, sym_in, inlen, sym_out + sym_outlen,
                                       sizeof sym_out - sym_outlen, deadline, answered,
                                       &count, &done);
    __atomic_store_n(&sym_pid, -1, __ATOMIC_RELEASE);
    cg_os_coproc_end(pid, fd, done);
    /* nothing read before the deadline: it did not start (an execve that
     * failed shows as an end of output, or as a write to it that fails,
     * whichever comes first) or failed at once */
    bool late = cg_os_now_ns() >= deadline;
    if (!done && late)
        give_up(path, "did not answer in time");
    else if (got == 0)
        give_up(path, "ended without an answer (it did not start, or failed)");
    char *p = sym_out + sym_outlen, *end = p + got;
    sym_outlen += got;
    for (size_t i = first; i < sym_n; i++) {
        sym_entry_t *e = &sym_tab[i];
        if (!in_run(e, llvm, mod))
            continue;
        if (!llvm) {                /* its address line first */
            char *a = next_line(&p, end);
            if (a == NULL || !is_hex_addr(a))
                break;
        }
        if (p >= end || !parse_answer(e, &p, end, llvm))
            break;
    }
}

/* The helper to run: symbolizer_path when set (addr2line's protocol when
 * its name ends in "addr2line"), else llvm-symbolizer from $PATH, else
 * addr2line.  False when there is none. */
static bool pick_helper(char *path, size_t cap, bool *llvm)
{
    /* a set-uid process runs nothing its untrusted environment ($PATH)
     * chose (symbolizer_path is ignored there too: CG_OPT_PATH) */
    if (cg_os_getauxval(AT_SECURE) != 0)
        return false;
    if (cg_opt.symbolizer_path[0] != 0) {
        set_str(path, cap, cg_opt.symbolizer_path);
        *llvm = !ends_with(path, "addr2line");
        return true;
    }
    static const char *const llvm_names[] = {
        "llvm-symbolizer", "llvm-symbolizer-19", "llvm-symbolizer-18", "llvm-symbolizer-17",
        "llvm-symbolizer-16", "llvm-symbolizer-15", "llvm-symbolizer-14", "llvm-symbolizer-13",
    };
    for (size_t i = 0; i < sizeof llvm_names / sizeof llvm_names[0]; i++)
        if (cg_os_find_program(llvm_names[i], path, cap)) {
            *llvm = true;
            return true;
        }
    *llvm = false;
    return cg_os_find_program("addr2line", path, cap);
}

void cg_sym_batch_run(void)
{
    if (!batch_mine() || sym_n == 0 || __atomic_load_n(&sym_given_up, __ATOMIC_ACQUIRE))
        return;
    int saved = errno;
    char path[CG_OPT_PATH_BUF];
    bool llvm;
    if (pick_helper(path, sizeof path, &llvm)) {
        /* within half of deadlock_timeout_ms too: the report lock is
         * held meanwhile, and a thread waiting for it longer than that
         * writes its report without it */
        uint64_t ms = SYM_TIMEOUT_MS, dl = (uint64_t)CG_LOAD(cg_opt.deadlock_timeout_ms);
        if (dl != 0 && dl / 2 < ms)
            ms = dl / 2;
        uint64_t deadline = cg_os_now_ns() + ms * 1000000u;
        sym_batch_ms = ms;
        if (llvm) {
            run_helper(path, true, -1, deadline);
            /* the modules whose path no CODE line can quote: a run each */
            for (size_t m = 0; m < sym_nmods && cg_os_now_ns() < deadline &&
                               !__atomic_load_n(&sym_given_up, __ATOMIC_ACQUIRE); m++)
                if (llvm_quote((int)m) == 0)
                    run_helper(path, true, (int)m, deadline);
        } else {
            size_t m = 0;
            for (; m < sym_nmods && cg_os_now_ns() < deadline &&
                   !__atomic_load_n(&sym_given_up, __ATOMIC_ACQUIRE); m++)
                run_helper(path, false, (int)m, deadline);
            /* the deadline ran out between two modules' runs (each one
             * answered): the modules left are not symbolized either */
            if (m < sym_nmods)
                give_up(path, "did not answer in time");
        }
    }
    errno = saved;
}

size_t cg_sym_lookup(uintptr_t pc, bool is_return, const cg_sym_inline_t **frames)
{
    const sym_entry_t *e = sym_find(is_return ? cg_call_site(pc) : pc);
    if (e == NULL || e->nframes == 0)
        return 0;
    *frames = &sym_frames[e->first];
    return e->nframes;
}

bool cg_symbolize_frame(uintptr_t pc, bool is_return, cg_frame_t *out)
{
    int saved = errno;
    uintptr_t look = is_return ? cg_call_site(pc) : pc;
    cg_mapping_t m;
    out->function[0] = 0;
    out->symbol[0] = 0;
    out->pc = look;
    out->offset = look;
    /* the whole path, straight into out->module: no copy on the stack */
    out->in_module = cg_find_mapping_path(look, &m, out->module, sizeof out->module);
    if (!out->in_module) {
        set_str(out->module, sizeof out->module, "<unknown module>");
        errno = saved;
        return false;
    }
    if (out->module[0] == 0) {
        set_str(out->module, sizeof out->module, "<anonymous>");
        out->offset = look - m.lo;
        errno = saved;
        return false;
    }
    out->offset = look - m.base;
    bool named = false;
    elf_ref_t ref;
    if (out->module[0] == '/' && !m.truncated && !ends_with(out->module, " (deleted)") &&
        elf_acquire(out->module, &ref)) {
        Elf64_Ehdr h;
        uint64_t va;
        if (elf_header(&ref.img, &h) &&
            elf_off_to_vaddr(&ref.img, &h, (uint64_t)(look - m.lo) + m.file_off, &va)) {
            out->offset = (uintptr_t)va;
            named = elf_function(&ref.img, &h, va, out->symbol, out->function,
                                 sizeof out->function);
        }
        elf_release(&ref);
    }
    errno = saved;
    return named;
}

/* ---- functions by call frame information -------------------------------- */

/* n bytes at address a of our own memory into dst: false unless all. */
static bool mem_read(uintptr_t a, void *dst, size_t n)
{
    return cg_os_copy_readable(dst, (const void *)a, n) == n;
}

/* The size of a value of DWARF pointer encoding enc's format (the low
 * nibble: absptr/udata8/sdata8 8, udata4/sdata4 4, udata2/sdata2 2); 0
 * for another (uleb128, omit). */
static size_t enc_size(unsigned enc)
{
    switch (enc & 0x0f) {
    case 0x00: case 0x04: case 0x0c: return 8;
    case 0x03: case 0x0b: return 4;
    case 0x02: case 0x0a: return 2;
    default: return 0;
    }
}

static uint64_t read_uval(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* A ULEB128 at *p (before end); false when it runs past end. */
static bool skip_leb(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
        unsigned char b = *(*p)++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (v != NULL)
                *v = r;
            return true;
        }
    }
    return false;
}

/* The encoding of the FDE pointers of the CIE at address cie ('R' of its
 * augmentation; absptr when it has none); -1 when it cannot be read. */
static int cie_fde_encoding(uintptr_t cie)
{
    unsigned char b[128];
    size_t got = cg_os_copy_readable(b, (const void *)cie, sizeof b);
    if (got < 16)
        return -1;
    uint32_t len = (uint32_t)read_uval(b, 4);
    if (len == 0xffffffffu || len < 8 || read_uval(b + 4, 4) != 0)
        return -1;
    const unsigned char *end = b + (got < (size_t)len + 4 ? got : (size_t)len + 4);
    unsigned version = b[8];
    const unsigned char *aug = b + 9, *p = aug;
    while (p < end && *p != 0)
        p++;
    if (p >= end)
        return -1;
    p++;
    if (!skip_leb(&p, end, NULL) || !skip_leb(&p, end, NULL))   /* code, data align */
        return -1;
    if (version == 1)
        p++;
    else if (!skip_leb(&p, end, NULL))
        return -1;
    if (aug[0] != 'z')
        return 0;
    if (!skip_leb(&p, end, NULL))
        return -1;
    for (const unsigned char *a = aug + 1; *a != 0 && p < end; a++) {
        if (*a == 'R')
            return *p;
        if (*a == 'L') {
            p++;
        } else if (*a == 'P') {
            size_t n = enc_size(*p);
            if (n == 0)
                return -1;
            p += 1 + n;
        } else if (*a != 'S' && *a != 'B') {
            return -1;
        }
    }
    return -1;
}

bool cg_sym_code_range(uintptr_t look, size_t *off, size_t *size)
{
    cg_mapping_t m;
    Elf64_Ehdr h;
    if (!cg_find_mapping(look, &m) || m.path[0] != '/' || !mem_read(m.base, &h, sizeof h) ||
        memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64 ||
        h.e_phentsize != sizeof(Elf64_Phdr) || h.e_phnum == 0 || h.e_phnum > 64)
        return false;
    Elf64_Phdr ph[64];
    if (!mem_read(m.base + h.e_phoff, ph, h.e_phnum * sizeof ph[0]))
        return false;
    /* the load bias: where the segment at file offset 0 went */
    uintptr_t bias = 0, hdr = 0;
    bool have_bias = false;
    for (size_t i = 0; i < h.e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0 && !have_bias) {
            bias = m.base - (uintptr_t)ph[i].p_vaddr;
            have_bias = true;
        }
        if (ph[i].p_type == PT_GNU_EH_FRAME)
            hdr = (uintptr_t)ph[i].p_vaddr;
    }
    if (!have_bias || hdr == 0)
        return false;
    hdr += bias;
    unsigned char hb[16];
    if (!mem_read(hdr, hb, 4) || hb[0] != 1 || hb[3] != 0x3b)     /* datarel | sdata4 */
        return false;
    size_t ptr_n = enc_size(hb[1]), cnt_n = enc_size(hb[2]);
    if (ptr_n == 0 || (cnt_n != 4 && cnt_n != 8) || !mem_read(hdr + 4, hb + 4, ptr_n + cnt_n))
        return false;
    uint64_t count = read_uval(hb + 4 + ptr_n, cnt_n);
    uintptr_t table = hdr + 4 + ptr_n + cnt_n;
    /* the last entry whose function starts at or below look */
    uint64_t lo = 0, hi = count;
    int32_t e[2] = { 0, 0 };
    bool found = false;
    while (lo < hi && count < (1u << 26)) {
        uint64_t mid = lo + (hi - lo) / 2;
        int32_t x[2];
        if (!mem_read(table + mid * 8, x, sizeof x))
            return false;
        if (hdr + (intptr_t)x[0] <= look) {
            e[0] = x[0];
            e[1] = x[1];
            found = true;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (!found)
        return false;
    uintptr_t start = hdr + (intptr_t)e[0], fde = hdr + (intptr_t)e[1];
    unsigned char fb[8];
    if (!mem_read(fde, fb, 8) || read_uval(fb, 4) == 0xffffffffu)
        return false;
    int enc = cie_fde_encoding(fde + 4 - (uint32_t)read_uval(fb + 4, 4));
    size_t n = enc < 0 ? 0 : enc_size((unsigned)enc);
    unsigned char rb[8];
    if (n == 0 || !mem_read(fde + 8 + n, rb, n))
        return false;
    uint64_t range = read_uval(rb, n);
    if (look - start >= range)
        return false;
    *off = look - start;
    *size = (size_t)range;
    return true;
}

/* "func (module+0xoff)" / "(module+0xoff)" / "(<unknown module>)". */
static size_t format_frame(char *buf, size_t cap, const cg_frame_t *f)
{
    if (!f->in_module)
        return cg_fmt(buf, cap, "(%N)", f->module);
    if (f->function[0])
        return cg_fmt(buf, cap, "%N (%P+0x%x)", f->function, f->module, (size_t)f->offset);
    return cg_fmt(buf, cap, "(%P+0x%x)", f->module, (size_t)f->offset);
}

size_t cg_symbolize(uintptr_t pc, char *buf, size_t cap)
{
    cg_frame_t f;
    cg_symbolize_frame(pc, false, &f);
    return format_frame(buf, cap, &f);
}

/* The room cg_format_stack keeps for its last line, the frames it had to
 * leave out. */
#define DROPPED_LINE_MAX 96

/*
 * One frame line onto buf[cap] at *len: "    #N 0xPC in FN FILE:LINE
 * (module+0xoff)" (PC and off: f's, a return address's call instruction;
 * the parts not known left out), " (inlined)" after it when inlined.  The
 * function cut to CG_FMT_NAME_MAX (%N), the paths whole (%P).  Written in
 * place (a line with two whole paths is 8 KiB: no copy of it on the
 * stack) and kept only when it fits whole with room for the
 * dropped-frames line after it (the stack's last line needs no such room,
 * nor its first: frame #0, where the bug is, says more than a count of
 * the frames left out); false, buf as it was, when it does not.
 */
static bool put_frame_line(char *buf, size_t cap, size_t *len, bool final, size_t i,
                           const char *fn, const char *file, uint32_t ln, const cg_frame_t *f,
                           bool inlined)
{
    size_t room = final || *len == 0 ? 0 : DROPPED_LINE_MAX;
    if (*len + room >= cap)
        return false;
    char *line = buf + *len;
    size_t lcap = cap - *len - room;
    size_t l = cg_fmt(line, lcap, "    #%zu %p ", i, (void *)f->pc);
    if (fn != NULL && fn[0] != 0)
        l += cg_fmt(line + l, lcap - l, "in %N ", fn);
    if (file != NULL && ln != 0)
        l += cg_fmt(line + l, lcap - l, "%P:%u ", file, (unsigned)ln);
    else if (file != NULL)
        l += cg_fmt(line + l, lcap - l, "%P ", file);
    l += f->in_module ? cg_fmt(line + l, lcap - l, "(%P+0x%x)", f->module, (size_t)f->offset)
                      : cg_fmt(line + l, lcap - l, "(%N)", f->module);
    l += cg_fmt(line + l, lcap - l, inlined ? " (inlined)\n" : "\n");
    /* cut (cg_fmt stops a byte short of lcap) or no room for its end */
    if (l + 1 >= lcap || line[l - 1] != '\n') {
        line[0] = 0;
        return false;
    }
    *len += l;
    return true;
}

/* f's name is the one to show for a frame the symbolizer names alt: it
 * has one, demangled (a mangled name libiberty would not take, longer
 * than it reads, gives way to the symbolizer's). */
static bool named_well(const cg_frame_t *f, const char *alt)
{
    if (f->function[0] == 0)
        return false;
    bool mangled = f->function[0] == '_' && f->function[1] == 'Z' &&
                   strcmp(f->function, f->symbol) == 0;
    return !mangled || alt == NULL || alt[0] == 0;
}

size_t cg_format_stack(char *buf, size_t cap, const uintptr_t *pcs, size_t n, bool exact0)
{
    size_t len = 0;
    if (cap == 0)
        return 0;
    buf[0] = 0;
    size_t i = 0, cut_lines = 0;    /* cut_lines: of frame i, not shown */
    for (; i < n; i++) {
        cg_frame_t f;
        bool ret = i > 0 || !exact0;
        cg_symbolize_frame(pcs[i], ret, &f);
        const cg_sym_inline_t *fr;
        size_t nfr = cg_sym_lookup(pcs[i], ret, &fr);
        if (nfr == 0) {
            if (!put_frame_line(buf, cap, &len, i + 1 == n, i, f.function, NULL, 0, &f, false))
                break;
            continue;
        }
        /* the inlined functions first, innermost first; the last is the
         * function the code is in: its symbol's name, demangled as in the
         * JSON and the HASH line, else the debug information's */
        size_t k = 0;
        for (; k < nfr; k++) {
            bool last = k + 1 == nfr;
            const char *fn = last && named_well(&f, fr[k].function) ? f.function
                                                                   : fr[k].function;
            if (!put_frame_line(buf, cap, &len, last && i + 1 == n, i, fn, fr[k].file,
                                fr[k].line, &f, !last))
                break;
        }
        if (k < nfr) {              /* the lines that fit of this frame are kept */
            cut_lines = nfr - k;
            break;
        }
    }
    if (i < n) {                    /* said, not silently lost; whole or not at all */
        char line[DROPPED_LINE_MAX];
        size_t l = cut_lines == 0
                       ? cg_fmt(line, sizeof line, "    ... %zu more frames not shown (the "
                                "report's size limit)\n", n - i)
                       : cg_fmt(line, sizeof line, "    ... %zu more lines of #%zu and %zu "
                                "more frames not shown (the report's size limit)\n",
                                cut_lines, i, n - i - 1);
        if (len + l < cap) {
            memcpy(buf + len, line, l + 1);
            len += l;
        }
    }
    return len;
}

size_t cg_symbolize_file(const char *path, uintptr_t vaddr, char *buf, size_t cap)
{
    int saved = errno;
    cg_frame_t f;
    f.in_module = true;
    f.pc = vaddr;
    f.offset = vaddr;
    f.function[0] = 0;
    f.symbol[0] = 0;
    set_str(f.module, sizeof f.module, path);
    elf_ref_t ref;
    if (elf_acquire(path, &ref)) {
        Elf64_Ehdr h;
        if (elf_header(&ref.img, &h))
            elf_function(&ref.img, &h, vaddr, f.symbol, f.function, sizeof f.function);
        elf_release(&ref);
    }
    errno = saved;
    return format_frame(buf, cap, &f);
}

bool cg_frame_named(uintptr_t pc, bool is_return, cg_frame_t *out)
{
    bool named = cg_symbolize_frame(pc, is_return, out) && out->function[0];
    const cg_sym_inline_t *fr;
    size_t n = cg_sym_lookup(pc, is_return, &fr);
    const char *name = n ? fr[n - 1].function : NULL;
    if (named && named_well(out, name))
        return true;
    if (name == NULL || name[0] == 0)
        return named;
    size_t k = 0;
    for (; name[k] && k + 1 < sizeof out->function; k++)
        out->function[k] = name[k];
    out->function[k] = 0;
    if (name[k] != 0)           /* cut: say so */
        memcpy(out->function + k - 3, "...", 3);
    return true;
}
