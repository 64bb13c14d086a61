/* Issue 13, point 13: a report begun on a nearly full stack.  The
 * program's SIGUSR1 handler runs on an alternate signal stack of its own
 * of SIGSTKSZ-sized room (8 KiB, a guard page below it, so that running
 * past it faults instead of writing over other memory) and there frees,
 * a second time, a block main freed.  Writing the report — unwinding,
 * symbolizing — needs more stack than such a handler has left; chunkguard
 * must still write it whole (on a stack of its own), then end the process
 * as the report says.
 *   small_altstack [ROOM]   ROOM: bytes of alternate stack (8192) */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *volatile block;

__attribute__((noinline)) static void again(void)
{
    free(block);                  /* the double free */
}

static void on_usr1(int sig)
{
    (void)sig;
    again();
}

int main(int argc, char **argv)
{
    size_t room = argc > 1 ? strtoul(argv[1], NULL, 0) : 8192;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, page + room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) != 0)
        return 2;
    stack_t ss = { .ss_sp = m + page, .ss_size = room, .ss_flags = 0 };
    if (sigaltstack(&ss, NULL) != 0)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    block = malloc(24);
    free(block);
    raise(SIGUSR1);
    puts("survived");
    return 0;
}
