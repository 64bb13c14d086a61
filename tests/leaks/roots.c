/*
 * roots.c — the leak check's roots when the process makes them hard to
 * read (tests/suites/59-leaks.sh; mode=debug:detect_leaks=1).  Each mode
 * keeps a 1000-byte block in a global that points to a 2000-byte one
 * (still reachable: never a leak); "-leak" modes also lose one of 50
 * bytes (a real leak, that must still be reported).
 *
 *   roots leader-global  main calls pthread_exit; its worker calls exit(0)
 *                   (the thread-group leader is then a zombie, and reads
 *                   addressed to the process id find no memory)
 *   roots seccomp[-leak]  a seccomp filter makes process_vm_readv fail with
 *                   EPERM, then main exits
 *   roots seccomp-pipe[-leak]  the same, and pipe2 fails with EPERM too
 *   roots seccomp-none  the same, and openat too (so /proc cannot be read
 *                   either), and one block of 50 bytes lost: no way to
 *                   read the roots is left
 *   roots rt-reset  a worker spins; main calls cg_leak_check() (dlsym), then
 *                   sets every real-time signal back to SIG_DFL, and exits
 *   roots rt-own    the same, but main installs its own handler on every
 *                   real-time signal (which says so on stdout if it runs)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void **volatile kept;
static volatile int ready;

NOINLINE static void keep(void)
{
    kept = malloc(1000);
    memset(kept, 0, 1000);
    kept[0] = malloc(2000);
}

NOINLINE static void lose(void)
{
    void *volatile *volatile lost = malloc(50);
    lost[0] = NULL;
    lost = NULL;
}

/* process_vm_readv fails with EPERM; with level 1 pipe2 too, with 2
 * openat too */
static int deny(int level)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, level >= 1 ? SYS_pipe2 : 0xfffff, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, level >= 2 ? SYS_openat : 0xfffff, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog prog = { sizeof f / sizeof f[0], f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void *spin(void *arg)
{
    (void)arg;
    __atomic_store_n(&ready, 1, __ATOMIC_SEQ_CST);
    for (;;)
        __asm__ volatile("" ::: "memory");
    return NULL;
}

static void *exiter(void *arg)
{
    (void)arg;
    usleep(50000);                 /* main has called pthread_exit */
    exit(0);
}

static void own(int sig)
{
    char m[] = "own handler ran\n";
    (void)sig;
    (void)!write(1, m, sizeof m - 1);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    pthread_t t;
    keep();
    if (!strcmp(m, "leader-global")) {
        if (pthread_create(&t, NULL, exiter, NULL) != 0)
            return 4;
        pthread_exit(NULL);
    }
    if (!strncmp(m, "seccomp", 7)) {
        if (strstr(m, "-leak") || !strcmp(m, "seccomp-none"))
            lose();
        if (deny(!strncmp(m, "seccomp-pipe", 12) ? 1 : !strcmp(m, "seccomp-none") ? 2 : 0) != 0)
            return 5;
        return 0;
    }
    if (!strcmp(m, "rt-reset") || !strcmp(m, "rt-own")) {
        size_t (*check)(void) = (size_t (*)(void))dlsym(RTLD_DEFAULT, "cg_leak_check");
        if (check == NULL)
            return 6;
        if (pthread_create(&t, NULL, spin, NULL) != 0)
            return 4;
        while (!__atomic_load_n(&ready, __ATOMIC_SEQ_CST))
            usleep(1000);
        printf("leaked %zu\n", check());
        fflush(stdout);
        for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
            signal(s, !strcmp(m, "rt-reset") ? SIG_DFL : own);
        return 0;
    }
    return 2;
}
