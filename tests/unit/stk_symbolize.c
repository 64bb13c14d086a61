/*
 * stk_symbolize.c — the symbolizer (src/symbolize.c): static functions of
 * the executable, ASan-style stack lines, return addresses at the end of a
 * function, a stripped module (.dynsym only), unknown and anonymous
 * addresses, and truncated or corrupt ELF files, which must never crash;
 * the maps reader with a path of ~3900 bytes (whole, one base, flagged cut).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maps.h"
#include "stk_util.h"

#ifdef __clang__
#define NOINL __attribute__((noinline))
#else
#define NOINL __attribute__((noinline, noclone))
#endif

NOINL static int stk_sym_static(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x * 5 + 3;
}

NOINL static int stk_sym_other(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x * 7 - 1;
}

static bool starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* The executable's path, as the maps file names it. */
static void self_path(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    buf[n > 0 ? n : 0] = 0;
}

/* "(module+0xOFF)" at the end of text: the offset. */
static uintptr_t offset_of(const char *text)
{
    const char *p = strrchr(text, '+');
    return p ? (uintptr_t)strtoull(p + 1, NULL, 16) : 0;
}

Test(symbolize, names_static_functions_of_the_executable)
{
    char buf[1024], exe[512], want[600];
    self_path(exe, sizeof exe);
    cg_symbolize((uintptr_t)stk_sym_static + 2, buf, sizeof buf);
    snprintf(want, sizeof want, "stk_sym_static (%s+0x", exe);
    cr_assert(starts_with(buf, want), "got '%s', want '%s...'", buf, want);
    cg_symbolize((uintptr_t)stk_sym_other + 1, buf, sizeof buf);
    cr_assert(starts_with(buf, "stk_sym_other ("), "got '%s'", buf);

    /* The offset is the ELF address: the file symbolizes it the same way. */
    char again[1024];
    cg_symbolize((uintptr_t)stk_sym_static + 2, buf, sizeof buf);
    cg_symbolize_file(exe, offset_of(buf), again, sizeof again);
    cr_assert_str_eq(again, buf);
}

/* An anonymous read-write mapping of `pages` pages that the kernel cannot
 * merge with a neighbour (which would move its start and so the offsets
 * the symbolizer prints): a PROT_NONE page on each side.  Unmap it with
 * munmap(p - 4096, (pages + 2) * 4096). */
static char *lonely_mapping(size_t pages)
{
    char *m = mmap(NULL, (pages + 2) * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(m, MAP_FAILED);
    cr_assert_eq(mprotect(m + 4096, pages * 4096, PROT_READ | PROT_WRITE), 0);
    return m + 4096;
}

Test(symbolize, stack_lines_in_asan_style)
{
    char exe[512], text[4096], want[1200];
    self_path(exe, sizeof exe);
    char *anon = lonely_mapping(1);
    uintptr_t pcs[3] = {(uintptr_t)stk_sym_static + 4, 0x10, (uintptr_t)anon + 0x21};
    size_t len = cg_format_stack(text, sizeof text, pcs, 3, false);
    cr_assert_eq(len, strlen(text));
    char l0[1024];
    cg_frame_t f;
    cg_symbolize_frame(pcs[0], true, &f);
    /* every frame a return address: shown at its call instruction
     * (cg_call_site; tested below), its pc and its offset alike; where
     * no call decodes (code in the middle of a function, memory not
     * executable) that address - 1 */
    cr_assert_eq(f.pc, cg_call_site(pcs[0]));
    snprintf(l0, sizeof l0, "    #0 %p in stk_sym_static (%s+0x%lx)\n", (void *)f.pc, exe,
             (unsigned long)f.offset);
    snprintf(want, sizeof want, "%s    #1 0xf (<unknown module>)\n    #2 %p (<anonymous>+0x20)\n",
             l0, (void *)(pcs[2] - 1));
    cr_assert_str_eq(text, want);
    /* Whole lines only: a buffer one byte short of two lines holds one. */
    size_t two = strlen(l0) + strlen("    #1 0xf (<unknown module>)\n");
    char small[2048];
    len = cg_format_stack(small, two, pcs, 3, false);
    cr_assert_str_eq(small, l0);
    cr_assert_eq(len, strlen(l0));
    cr_assert_eq(cg_format_stack(small, 5, pcs, 3, false), 0);
    cr_assert_str_eq(small, "");
    munmap(anon - 4096, 3 * 4096);
}

Test(symbolize, return_address_at_the_end_of_a_function)
{
    /* Find where stk_sym_static ends: the first address past it that the
     * symbolizer no longer gives its name. */
    char buf[1024];
    uintptr_t end = 0;
    for (uintptr_t a = (uintptr_t)stk_sym_static; a < (uintptr_t)stk_sym_static + 4096; a++) {
        cg_symbolize(a, buf, sizeof buf);
        if (!starts_with(buf, "stk_sym_static (")) {
            end = a;
            break;
        }
    }
    cr_assert_neq(end, 0);
    cg_frame_t f;
    cr_assert_str_eq(stk_name_of(end, &f), "stk_sym_static", "a return address is looked up at pc - 1");
    cg_symbolize(end, buf, sizeof buf);
    cr_assert(!starts_with(buf, "stk_sym_static ("), "pc itself is past the function: '%s'", buf);
    /* A return address's frame is its call (cg_call_site): a noreturn
     * call ending the function (ASan's builds end functions with calls of
     * their report functions), else pc - 1; its pc and offset are that
     * address's, a few bytes before pc's (cg_symbolize looks pc up as
     * given). */
    uintptr_t call = cg_call_site(end);
    cr_assert(call < end && call + 9 >= end, "call %lx for %lx", (unsigned long)call,
              (unsigned long)end);
    cr_assert_eq(f.pc, call, "pc %lx, want %lx", (unsigned long)f.pc, (unsigned long)call);
    cr_assert_eq(f.offset + (end - call), offset_of(buf), "offset %lx vs '%s'",
                 (unsigned long)f.offset, buf);
}

static void *open_fixture(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(h, "dlopen %s: %s", name, dlerror());
    return h;
}

/* want = "<prefix><real path of the fixture file>+0x", as maps names it. */
static const char *fixture_want(char *want, size_t cap, const char *prefix, const char *file)
{
    char real[PATH_MAX];
    cr_assert_not_null(realpath(file, real), "%s", file);
    snprintf(want, cap, "%s%s+0x", prefix, real);
    return want;
}

Test(symbolize, stripped_module_falls_back_to_dynsym)
{
    static const char full_so[] = STK_FIXTURE_DIR "/libstk_fixture.so";
    static const char stripped_so[] = STK_FIXTURE_DIR "/libstk_fixture_stripped.so";
    char buf[1024], want[PATH_MAX + 64];
    void *full = open_fixture(full_so);
    void *stripped = open_fixture(stripped_so);

    uintptr_t g = (uintptr_t)dlsym(full, "stk_fixture_global");
    void *(*sa)(void) = (void *(*)(void))dlsym(full, "stk_fixture_static_addr");
    cr_assert(g && sa);
    cg_symbolize(g + 1, buf, sizeof buf);
    fixture_want(want, sizeof want, "stk_fixture_global (", full_so);
    cr_assert(starts_with(buf, want), "'%s', want '%s...'", buf, want);
    cg_symbolize((uintptr_t)sa() + 1, buf, sizeof buf);
    fixture_want(want, sizeof want, "stk_fixture_static (", full_so);
    cr_assert(starts_with(buf, want), "a static function of an unstripped module: '%s'", buf);

    g = (uintptr_t)dlsym(stripped, "stk_fixture_global");
    sa = (void *(*)(void))dlsym(stripped, "stk_fixture_static_addr");
    cr_assert(g && sa);
    cg_symbolize(g + 1, buf, sizeof buf);
    fixture_want(want, sizeof want, "stk_fixture_global (", stripped_so);
    cr_assert(starts_with(buf, want), "an exported function of a stripped module (.dynsym): '%s'",
              buf);
    cg_symbolize((uintptr_t)sa() + 1, buf, sizeof buf);
    fixture_want(want, sizeof want, "(", stripped_so);
    cr_assert(starts_with(buf, want), "a static function of a stripped module has no name: '%s'",
              buf);

    /* Same offsets either way: the module+offset part does not depend on
     * the symbol table. */
    char a[1024], b[1024];
    cg_symbolize_file(full_so, offset_of(buf), a, sizeof a);
    cg_symbolize_file(stripped_so, offset_of(buf), b, sizeof b);
    cr_assert(starts_with(a, "stk_fixture_static ("), "'%s'", a);
    cr_assert(starts_with(b, "(" STK_FIXTURE_DIR "/libstk_fixture_stripped.so+0x"), "'%s'", b);
    dlclose(stripped);
    dlclose(full);
}

Test(symbolize, unknown_and_anonymous_addresses)
{
    char buf[256];
    cg_symbolize(0x10, buf, sizeof buf);
    cr_assert_str_eq(buf, "(<unknown module>)");
    char *anon = lonely_mapping(2);
    cg_symbolize((uintptr_t)anon + 0x1234, buf, sizeof buf);
    cr_assert_str_eq(buf, "(<anonymous>+0x1234)");
    munmap(anon - 4096, 4 * 4096);
    /* Cut at cap, always terminated. */
    char tiny[6];
    cr_assert_eq(cg_symbolize(0x10, tiny, sizeof tiny), 5);
    cr_assert_str_eq(tiny, "(<unk");
}

/* ---- corrupt files ----------------------------------------------------- */

static unsigned char *read_whole(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    struct stat sb;
    cr_assert_eq(fstat(fd, &sb), 0);
    unsigned char *p = malloc((size_t)sb.st_size);
    cr_assert_not_null(p);
    cr_assert_eq(pread(fd, p, (size_t)sb.st_size, 0), sb.st_size);
    close(fd);
    *size = (size_t)sb.st_size;
    return p;
}

static void write_whole(const char *path, const unsigned char *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, p, n), (ssize_t)n);
    close(fd);
}

/* Symbolize vaddr in the file at path, and the same file mapped into the
 * process as if it were a loaded module (so the maps path is used too).
 * Whatever the file holds, the output names the file and does not crash. */
static void poke(const char *path, uintptr_t vaddr, size_t size, const char *what)
{
    char buf[1024];
    cg_symbolize_file(path, vaddr, buf, sizeof buf);
    cr_assert(strstr(buf, path) != NULL, "%s: '%s'", what, buf);
    if (size == 0)
        return;
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    cr_assert_neq(m, MAP_FAILED);
    cg_symbolize((uintptr_t)m + (vaddr < size ? vaddr : size / 2), buf, sizeof buf);
    cr_assert(strstr(buf, path) != NULL, "%s (mapped): '%s'", what, buf);
    munmap(m, size);
}

/* The vaddr of stk_fixture_static in the unstripped fixture, from its own
 * symbol table (found through the symbolizer's file API). */
static uintptr_t fixture_static_vaddr(const char *path)
{
    void *h = open_fixture(STK_FIXTURE_DIR "/libstk_fixture.so");
    void *(*sa)(void) = (void *(*)(void))dlsym(h, "stk_fixture_static_addr");
    char buf[1024];
    cg_symbolize((uintptr_t)sa() + 1, buf, sizeof buf);
    dlclose(h);
    uintptr_t va = offset_of(buf);
    cg_symbolize_file(path, va, buf, sizeof buf);
    cr_assert(starts_with(buf, "stk_fixture_static ("), "the intact file: '%s'", buf);
    return va;
}

Test(symbolize, truncated_files_never_crash)
{
    size_t size;
    unsigned char *img = read_whole(STK_FIXTURE_DIR "/libstk_fixture.so", &size);
    char path[] = "/tmp/cg-stk-elf.XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    write_whole(path, img, size);
    uintptr_t va = fixture_static_vaddr(path);
    int named = 0, tried = 0;
    for (size_t len = 0; len < size; len += (len < 256 ? 1 : 61)) {
        write_whole(path, img, len);
        poke(path, va, len, "truncated");
        char buf[1024];
        cg_symbolize_file(path, va, buf, sizeof buf);
        named += starts_with(buf, "stk_fixture_static (");
        tried++;
    }
    unlink(path);
    free(img);
    /* The symbol table sits near the end: a file cut before it names nothing. */
    cr_assert_lt(named, tried, "every truncated file still named the function");
}

static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }

Test(symbolize, corrupt_headers_never_crash)
{
    size_t size;
    unsigned char *img = read_whole(STK_FIXTURE_DIR "/libstk_fixture.so", &size);
    unsigned char *bad = malloc(size);
    cr_assert_not_null(bad);
    char path[] = "/tmp/cg-stk-elf.XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    write_whole(path, img, size);
    uintptr_t va = fixture_static_vaddr(path);
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);

    /* Targeted damage: header fields, then every section header's fields. */
    struct { size_t off; int width; uint64_t val; } edits[] = {
        {offsetof(Elf64_Ehdr, e_shoff), 8, ~0ull},
        {offsetof(Elf64_Ehdr, e_shoff), 8, size - 10},
        {offsetof(Elf64_Ehdr, e_shoff), 8, 3},
        {offsetof(Elf64_Ehdr, e_phoff), 8, ~0ull - 100},
        {offsetof(Elf64_Ehdr, e_phoff), 8, 5},
        {offsetof(Elf64_Ehdr, e_shnum), 2, 0xffff},
        {offsetof(Elf64_Ehdr, e_phnum), 2, 0xffff},
        {offsetof(Elf64_Ehdr, e_shentsize), 2, 1},
        {offsetof(Elf64_Ehdr, e_phentsize), 2, 0},
        {offsetof(Elf64_Ehdr, e_ident) + EI_CLASS, 1, ELFCLASS32},
        {0, 1, 0},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(bad, img, size);
        if (edits[i].width == 8) put64(bad + edits[i].off, edits[i].val);
        else if (edits[i].width == 4) put32(bad + edits[i].off, (uint32_t)edits[i].val);
        else if (edits[i].width == 2) put16(bad + edits[i].off, (uint16_t)edits[i].val);
        else bad[edits[i].off] = (unsigned char)edits[i].val;
        write_whole(path, bad, size);
        poke(path, va, size, "ELF header edit");
    }
    static const struct { size_t off; int width; uint64_t val; } shfields[] = {
        {offsetof(Elf64_Shdr, sh_offset), 8, ~0ull - 7},
        {offsetof(Elf64_Shdr, sh_offset), 8, 1},
        {offsetof(Elf64_Shdr, sh_size), 8, ~0ull},
        {offsetof(Elf64_Shdr, sh_size), 8, 1u << 30},
        {offsetof(Elf64_Shdr, sh_link), 4, 0xffffffffu},
        {offsetof(Elf64_Shdr, sh_link), 4, 0},
        {offsetof(Elf64_Shdr, sh_entsize), 8, 0},
        {offsetof(Elf64_Shdr, sh_type), 4, SHT_SYMTAB},
        {offsetof(Elf64_Shdr, sh_type), 4, SHT_STRTAB},
    };
    for (size_t s = 0; s < eh.e_shnum; s++)
        for (size_t i = 0; i < sizeof shfields / sizeof shfields[0]; i++) {
            memcpy(bad, img, size);
            unsigned char *f = bad + eh.e_shoff + s * sizeof(Elf64_Shdr) + shfields[i].off;
            if (shfields[i].width == 8) put64(f, shfields[i].val);
            else put32(f, (uint32_t)shfields[i].val);
            write_whole(path, bad, size);
            poke(path, va, size, "section header edit");
        }
    /* Every symbol's name offset out of range, and the string tables
     * without their terminating NULs. */
    memcpy(bad, img, size);
    for (size_t s = 0; s < eh.e_shnum; s++) {
        Elf64_Shdr sh;
        memcpy(&sh, img + eh.e_shoff + s * sizeof sh, sizeof sh);
        if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
            for (size_t j = 0; j < sh.sh_size / sizeof(Elf64_Sym); j++)
                put32(bad + sh.sh_offset + j * sizeof(Elf64_Sym), 0x7fffffff);
        if (sh.sh_type == SHT_STRTAB)
            memset(bad + sh.sh_offset, 'A', sh.sh_size);
    }
    write_whole(path, bad, size);
    poke(path, va, size, "names out of range");
    memcpy(bad, img, size);
    for (size_t s = 0; s < eh.e_shnum; s++) {
        Elf64_Shdr sh;
        memcpy(&sh, img + eh.e_shoff + s * sizeof sh, sizeof sh);
        if (sh.sh_type == SHT_STRTAB)
            memset(bad + sh.sh_offset, 'A', sh.sh_size);
    }
    write_whole(path, bad, size);
    char buf[1024];
    cg_symbolize_file(path, va, buf, sizeof buf);
    cr_assert(starts_with(buf, "A"), "unterminated names are cut at their table: '%s'", buf);
    cr_assert_lt(strlen(buf), 1024);
    /* Random damage, deterministic seed. */
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < 300; round++) {
        memcpy(bad, img, size);
        for (int k = 0; k < 8; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            size_t at = (size_t)(x % size);
            if (k < 4)
                at = (size_t)(x % (sizeof(Elf64_Ehdr) + 64));     /* the headers */
            else if (k < 6 && eh.e_shoff < size)
                at = eh.e_shoff + (size_t)(x % (size - eh.e_shoff));
            bad[at] = (unsigned char)(x >> 32);
        }
        write_whole(path, bad, size);
        poke(path, va, size, "random damage");
    }
    unlink(path);
    free(bad);
    free(img);
}

/* ---- the call instruction of a return address (callsite.c) ------------ */

/* bytes at page + at, the page then made r-x: the return address after them */
static uintptr_t code_at(char *page, size_t at, const unsigned char *b, size_t n)
{
    cr_assert_eq(mprotect(page, 4096, PROT_READ | PROT_WRITE), 0);
    memset(page, 0x90, 4096);                   /* nop */
    memcpy(page + at, b, n);
    cr_assert_eq(mprotect(page, 4096, PROT_READ | PROT_EXEC), 0);
    return (uintptr_t)page + at + n;
}

Test(symbolize, call_site_of_each_call_form)
{
    char *page = lonely_mapping(1);
    static const struct {
        const char *what;
        unsigned char b[12];
        size_t n, call;                         /* bytes, where the call begins */
    } forms[] = {
        { "e8 rel32 into the mapping", { 0xe8, 0x00, 0x01, 0x00, 0x00 }, 5, 0 },
        { "e8 rel32 backwards", { 0xe8, 0x00, 0xff, 0xff, 0xff }, 5, 0 },
        { "call *%rax", { 0xff, 0xd0 }, 2, 0 },
        { "call *%r12", { 0x41, 0xff, 0xd4 }, 3, 0 },
        { "notrack call *%rax", { 0x3e, 0xff, 0xd0 }, 3, 0 },
        { "call *(%rax)", { 0xff, 0x10 }, 2, 0 },
        { "call *0x8(%rax)", { 0xff, 0x50, 0x08 }, 3, 0 },
        { "call *0x8(%rsp)", { 0xff, 0x54, 0x24, 0x08 }, 4, 0 },
        { "call *0x100(%rbx)", { 0xff, 0x93, 0x00, 0x01, 0x00, 0x00 }, 6, 0 },
        { "call *disp32(%rip)", { 0xff, 0x15, 0x10, 0x20, 0x00, 0x00 }, 6, 0 },
        { "call *0x100(%rsp)", { 0xff, 0x94, 0x24, 0x00, 0x01, 0x00, 0x00 }, 7, 0 },
        { "call *0x100(%r12)", { 0x41, 0xff, 0x94, 0x24, 0x00, 0x01, 0x00, 0x00 }, 8, 0 },
        { "call *%fs:0x10", { 0x64, 0xff, 0x14, 0x25, 0x10, 0x00, 0x00, 0x00 }, 8, 0 },
        { "call *(%r9,%r9,8): REX.X and B", { 0x43, 0xff, 0x14, 0xc9 }, 4, 0 },
        /* a load's disp8 0x48 before "ff d0" is no REX.W of the call */
        { "mov 0x48(%rsp),%rdi; call *%rax",
          { 0x48, 0x8b, 0x7c, 0x24, 0x48, 0xff, 0xd0 }, 7, 5 },
        /* an e8 whose target is no mapping: the ff /2 inside it wins */
        { "e8 to nowhere, ff d0 in it", { 0xe8, 0x00, 0x00, 0xff, 0xd0 }, 5, 3 },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        uintptr_t ret = code_at(page, 512, forms[i].b, forms[i].n);
        uintptr_t want = (uintptr_t)page + 512 + forms[i].call;
        cr_expect_eq(cg_call_site(ret), want, "%s: %lx, want %lx", forms[i].what,
                     (unsigned long)cg_call_site(ret), (unsigned long)want);
        /* the frame's pc and offset are the call's */
        cg_frame_t f;
        cg_symbolize_frame(ret, true, &f);
        cr_expect_eq(f.pc, want, "%s: frame pc", forms[i].what);
        cr_expect_eq(f.offset, want - (uintptr_t)page, "%s: frame offset", forms[i].what);
    }
    /* nothing decodes (nops): return address - 1 */
    uintptr_t ret = code_at(page, 512, (const unsigned char *)"\x90\x90", 2);
    cr_expect_eq(cg_call_site(ret), ret - 1);
    /* the same answers from the memo, within a maps snapshot */
    ret = code_at(page, 512, forms[3].b, forms[3].n);
    bool snap = cg_maps_snapshot_begin();
    cr_expect_eq(cg_call_site(ret), (uintptr_t)page + 512);
    cr_expect_eq(cg_call_site(ret), (uintptr_t)page + 512);
    if (snap)
        cg_maps_snapshot_end();
    cr_expect_eq(cg_call_site(0), 0);
    munmap(page - 4096, 3 * 4096);
}

Test(symbolize, call_site_reads_only_its_executable_mapping)
{
    /* "ff d0" at the very start of a mapping after an inaccessible page:
     * found without reading a byte before the mapping */
    char *page = lonely_mapping(1);
    static const unsigned char call_rax[] = { 0xff, 0xd0 };
    uintptr_t ret = code_at(page, 0, call_rax, 2);
    cr_expect_eq(cg_call_site(ret), (uintptr_t)page);
    /* an e8 whose first bytes lie in the page before, readable but
     * another mapping (not executable): not read, not taken */
    char *before = page - 4096;
    cr_assert_eq(mprotect(before, 4096, PROT_READ | PROT_WRITE), 0);
    before[4094] = (char)0xe8;
    before[4095] = 0;
    cr_assert_eq(mprotect(before, 4096, PROT_READ), 0);
    static const unsigned char tail[] = { 0x00, 0x00, 0x00 };
    ret = code_at(page, 0, tail, 3);            /* e8 00 | 00 00 00: to ret itself */
    cr_expect_eq(cg_call_site(ret), ret - 1);
    /* a call in memory that is readable but not executable: ret - 1 */
    cr_assert_eq(mprotect(page, 4096, PROT_READ | PROT_WRITE), 0);
    memcpy(page + 64, call_rax, 2);
    ret = (uintptr_t)page + 66;
    cr_expect_eq(cg_call_site(ret), ret - 1);
    /* executable but not readable (PROT_EXEC alone): ret - 1, no fault */
    cr_assert_eq(mprotect(page, 4096, PROT_EXEC), 0);
    cr_expect_eq(cg_call_site(ret), ret - 1);
    munmap(page - 4096, 3 * 4096);
    /* an address in no mapping at all: ret - 1 */
    cr_expect_eq(cg_call_site(ret), ret - 1);
}

/* A file at a path of about 3900 bytes (names of 200 bytes, blanks in
 * them), mapped as two mappings (the second page made writable): the
 * maps reader gives the whole path (and " (deleted)" once it is
 * unlinked), one base for both, a cut short name flagged truncated. */
Test(symbolize, maps_whole_long_path)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "/tmp/cg-longpath-%d", (int)getpid());
    mkdir(path, 0700);
    for (int i = 0; i < 19; i++) {
        path[n++] = '/';
        for (int k = 0; k < 200; k++)
            path[n++] = k == 100 ? ' ' : (char)('a' + i);
        path[n] = 0;
        cr_assert_eq(mkdir(path, 0700), 0, "mkdir at %d bytes", n);
    }
    n += snprintf(path + n, sizeof path - (size_t)n, "/file");
    cr_assert_gt(n, 3700);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, 2 * 4096), 0);
    struct stat st;
    cr_assert_eq(fstat(fd, &st), 0);
    char *map = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, fd, 0);
    cr_assert_neq(map, MAP_FAILED);
    cr_assert_eq(mprotect(map + 4096, 4096, PROT_READ | PROT_WRITE), 0);
    /* the first page executable, if /tmp allows it: then a snapshot,
     * which keeps executable mappings only, holds it */
    bool exec = mprotect(map, 4096, PROT_READ | PROT_EXEC) == 0;
    close(fd);

    static char got[CG_MAPS_PATH_MAX];
    cg_mapping_t m;
    cr_assert(cg_find_mapping_path((uintptr_t)map + 4096 + 8, &m, got, sizeof got));
    cr_expect_str_eq(got, path);
    cr_expect(!m.truncated);
    cr_expect_eq(m.lo, (uintptr_t)map + 4096);
    cr_expect_eq(m.base, (uintptr_t)map, "one base for both mappings of the file");
    cr_expect_eq(m.inode, (uint64_t)st.st_ino);
    cr_expect_eq(m.file_off, 4096);
    cr_expect_eq(strlen(m.path), CG_MAPS_NAME_MAX - 1);
    cr_expect_eq(strncmp(m.path, path, CG_MAPS_NAME_MAX - 1), 0);
    /* no buffer: the short name, flagged */
    cr_assert(cg_find_mapping((uintptr_t)map, &m));
    cr_expect(m.truncated);
    cr_expect_eq(strncmp(m.path, path, CG_MAPS_NAME_MAX - 1), 0);
    /* a buffer too small: cut, flagged */
    char small[100];
    cr_assert(cg_find_mapping_path((uintptr_t)map, &m, small, sizeof small));
    cr_expect(m.truncated);
    cr_expect_eq(strlen(small), sizeof small - 1);
    /* the same answers from a snapshot */
    if (exec) {
        cr_assert(cg_maps_snapshot_begin());
        cr_assert(cg_find_mapping_path((uintptr_t)map, &m, got, sizeof got));
        cr_expect_str_eq(got, path);
        cr_expect(!m.truncated);
        cr_assert(cg_find_mapping((uintptr_t)map, &m));
        cr_expect(m.truncated);
        cg_maps_snapshot_end();
    }
    /* deleted: the path and " (deleted)", whole */
    cr_assert_eq(unlink(path), 0);
    cr_assert(cg_find_mapping_path((uintptr_t)map, &m, got, sizeof got));
    char want[4200];
    snprintf(want, sizeof want, "%s (deleted)", path);
    cr_expect_str_eq(got, want);
    cr_expect(!m.truncated);
    munmap(map, 2 * 4096);
    for (int i = 19; i >= 0; i--) {
        char *slash = strrchr(path, '/');
        *slash = 0;
        rmdir(path);
    }
}
