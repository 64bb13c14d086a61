/* Issue 13, point 16: the program copies a few instructions into a block
 * of its own, makes the block's pages executable (and read-only) with
 * mprotect, and jumps into it; the code stores into the block itself,
 * which the new protection forbids: a SIGSEGV on a live block, at a pc
 * inside that block.  Small and medium blocks (in a chunkguard heap) get
 * a segv report; so must a big block (a mapping of its own) — every
 * size must get the same report.
 *   exec_block SIZE [fetch | null]
 * With "fetch" the program makes only the block's first page executable
 * and the code runs on into the next one (not executable, and still the
 * block's: SIZE is at least two pages and one byte): an instruction fetch
 * faults.  With "null" it calls through a NULL function pointer instead
 * (no block): the fetch at pc 0 faults, on memory that is not ours. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : 1 << 20;
    int fetch = argc > 2 && strcmp(argv[2], "fetch") == 0;
    if (argc > 2 && strcmp(argv[2], "null") == 0) {
        void (*volatile nothing)(void) = NULL;
        printf("cg-expect-addr=0x0\n");
        fflush(stdout);
        nothing();
        return 0;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *p = memalign(page, size);
    if (p == NULL || (fetch && size < 2 * page + 1))
        return 2;
    /* movb $0x41, -7(%rip), then ret: a store into the store's own first
     * byte (%rip-relative addresses count from the next instruction) */
    static const unsigned char store[] = { 0xc6, 0x05, 0xf9, 0xff, 0xff, 0xff, 0x41, 0xc3 };
    char *code = p;
    if (fetch) {
        /* nops up to the end of the first page, then the second page */
        code = p + page - 16;
        memset(code, 0x90, 16);
        memset(p + page, 0x90, 16);
        p[page + 16] = (char)0xc3;
    } else {
        memcpy(code, store, sizeof store);
    }
    size_t len = fetch ? page : (size + page - 1) / page * page;
    if (mprotect(p, len, PROT_READ | PROT_EXEC) != 0) {
        perror("mprotect");
        return 2;
    }
    printf("cg-expect-addr=0x%lx\n", (unsigned long)(fetch ? p + page : code));
    fflush(stdout);
    ((void (*)(void))code)();
    puts("not reached");
    return 0;
}
