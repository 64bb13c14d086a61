#!/usr/bin/env python3
"""check-os-access.py — every call to the operating system goes through
src/base/ (platform.c and its neighbours).

Lists each object built from a folder of src/ other than base/ that uses
a libc function which is a system call or reads the process's
environment, files or loader state (OS_FUNCTIONS below), by the
symbols its object file takes from elsewhere (nm), and each source file
outside base/ with a raw `syscall` instruction in inline assembly:

    os access: src/debug/leaks.c calls getpid _exit (outside src/base)

and each object but platform.c's (base/ included) that reads the
environment itself (ENV_SYMBOLS): only cg_os_getenv knows where the
environment is before libc has set `environ` (src/base/platform.c):

    os access: src/base/options.c reads getenv (outside src/base/platform.c)

Usage: check-os-access.py --objs DIR [--src DIR]
Exit status 0 when there is none, 1 when there is, 2 on bad usage.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers as L  # noqa: E402

# System calls and the libc functions that reach the process's
# environment, files, signals, the loader or the thread runtime's
# callbacks (thread-exit keys, fork handlers).
OS_FUNCTIONS = set("""
open open64 openat openat64 creat close read pread pread64 write pwrite pwrite64
readv writev readlink readlinkat fstat fstat64 stat stat64 lstat lstat64 statx
access faccessat unlink mkdir
mmap mmap64 munmap mprotect madvise mremap msync mlock munlock
syscall getpid gettid getppid getuid geteuid sched_yield sched_getaffinity
clock_gettime gettimeofday time nanosleep usleep sleep
sigaction sigprocmask pthread_sigmask sigaltstack signal kill raise tgkill
abort _exit _Exit exit fork vfork execve execv execvp waitpid wait pipe pipe2
dup dup2 dup3 ioctl fcntl fcntl64 prctl sysconf getrlimit setrlimit uname
getenv secure_getenv getauxval
dlopen dlmopen dlsym dlvsym dlclose dladdr dlinfo dl_iterate_phdr
fopen fdopen freopen fclose fwrite fputs fputc putc fprintf vfprintf printf
vprintf puts fflush
process_vm_readv process_vm_writev getrandom
pthread_atfork pthread_key_create pthread_key_delete pthread_setspecific
""".split())

# Where the environment is: read by platform.c alone.
ENV_SYMBOLS = set("getenv secure_getenv environ __environ _environ".split())

ASM_SYSCALL = re.compile(r'(__asm__|\basm\b)[^;]*"[^"]*\bsyscall\b')


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.path.join(here, "..", "src"))
    ap.add_argument("--objs", required=True)
    a = ap.parse_args()
    src = os.path.relpath(os.path.normpath(a.src))
    order = L.read_layers(src)
    bad = []
    for obj, layer in sorted(L.objects_by_layer(a.objs, src, order).items()):
        _, used = L.object_symbols(obj)
        name = os.path.splitext(os.path.basename(obj))[0] + ".c"
        env = sorted(used & ENV_SYMBOLS)
        if env and not (layer == "base" and name == "platform.c"):
            bad.append("os access: %s reads %s (outside %s/base/platform.c)"
                       % (os.path.join(src, layer, name), " ".join(env), src))
        if layer == "base":
            continue
        calls = sorted(used & OS_FUNCTIONS)
        if calls:
            bad.append("os access: %s calls %s (outside %s/base)"
                       % (os.path.join(src, layer, name), " ".join(calls), src))
    for layer, path in L.source_files(src, order):
        if layer == "base":
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        if ASM_SYSCALL.search(text):
            bad.append("os access: %s has a raw syscall instruction (outside %s/base)"
                       % (path, src))
    for b in bad:
        print(b)
    print("check-os-access: %s: %d places outside base/ that call the OS"
          % (src, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
