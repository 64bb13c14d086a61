#!/usr/bin/env bash
# 45-lifecycle.sh — start-up, exit, symbols and limits.
#   shim-dlsym       a preloaded malloc wrapper resolving with dlsym/dlerror
#                    (which allocate) in front of chunkguard: no deadlock
#   exit-paths       frees in atexit, TLS destructors, after main; thread exits
#   before-ctor      a library constructor allocates before chunkguard's
#                    (libchunkguard.a linked in); the block is chunkguard's
#   prlimit-as       python3 and an 8-thread program start under prlimit --as=512M
#   tls-small        initial-exec TLS of libchunkguard.so <= 64 bytes
#   exports          the .so exports exactly the API (version script): the
#                    malloc family, C++'s operator new and delete forms,
#                    chunkguard's own, sigaction/signal (entry/signals.c),
#                    _exit/_Exit and fork/__register_atfork (entry/interpose.c),
#                    daemon (entry/daemon.c)
#   fork-handlers-lazy  fast mode registers its fork handlers with libc only
#                    when needed (entry/init.c): not in a program that never
#                    forks, before the first fork(), before the program's
#                    own pthread_atfork handler (so prepare runs ours last),
#                    at a second thread's first call; debug mode at start-up
#   fork-handlers-early  a constructor before chunkguard's registers a
#                    prepare handler that allocates: ours still runs after
#                    it (libchunkguard.a and the .so, both modes)
#   fork-child-stack  a fork child's report stacks (threaded program,
#                    libchunkguard.a): the program's call sites
#   fork-dlopen-report  a fork child of a program whose threads dlopen and
#                    walk the modules in a loop: each child's report is
#                    written, rc 134 (.so and .a, fast and debug mode)
#   loader-held-head  fast mode, the loader's lock held for ever by another
#                    thread: a report's first lines are out before its
#                    unwinder's dlopen waits for it
#   fork-handlers-lib  a shared library's constructor (before the
#                    program's, libchunkguard.a linked in) registers a
#                    prepare handler that allocates, forks and allocates:
#                    ours still runs after that handler (both modes)
#   fork-handlers-daemon-stats  with stats_path set, a daemon() child's
#                    stats line counts its own calls only
#   stderr-closed    a double free with fd 2 closed still dies by SIGABRT
#   preinit-env      the first malloc from a .preinit_array function, before
#                    libc sets environ (libchunkguard.a linked in, and the .so
#                    preloaded, also through an explicit ld.so): the
#                    CHUNKGUARD_OPTIONS mode and GLIBC_TUNABLES setting apply
#   libfuzzer-env    docs/fuzzing.md's libFuzzer recipe (clang -fsanitize=
#                    fuzzer, libchunkguard.a): CHUNKGUARD_OPTIONS=help=1 lists
#                    the options, verbosity=1 prints the start-up line
set -u
R=$CG_ROOT; B=$CG_BUILD/lifecycle; SO=$CG_SO
mkdir -p "$B"
make -s -C "$R" lib >/dev/null || { echo "FAIL lifecycle-build: make lib"; exit 1; }
cc=(gcc -O1 -g -Wall -I"$R/include")
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

"${cc[@]}" -fPIC -shared -o "$B/shim.so" "$R/tests/lifecycle/shim.c" -ldl || fail shim-build gcc
"${cc[@]}" -pthread -o "$B/exit_paths" "$R/tests/lifecycle/exit_paths.c" || fail exit-build gcc
"${cc[@]}" -fPIC -shared -o "$B/libearly.so" "$R/tests/lifecycle/early_lib.c" || fail early-build gcc
"${cc[@]}" -o "$B/early_main" "$R/tests/lifecycle/early_main.c" -L"$B" -learly \
    -Wl,-rpath,"$B" "$CG_BUILD/libchunkguard.a" -pthread -lunwind || fail early-build gcc

# shim-dlsym: the shim first, chunkguard behind it.
stats=$(mktemp -d); trap 'rm -rf "$stats"' EXIT
out=$(SHIM_REPORT=1 CHUNKGUARD_OPTIONS=stats_path=$stats/cg.%p LD_PRELOAD="$B/shim.so:$SO" \
      timeout 20 "$B/exit_paths" 2>"$stats/err"); rc=$?
if [ $rc -eq 0 ] && [ "$out" = ok ] && grep -q '^shim: [1-9]' "$stats/err" &&
   grep -q 'mallocs=[1-9]' "$stats"/cg.* 2>/dev/null; then pass shim-dlsym
else fail shim-dlsym "rc=$rc out='$out' err=$(head -c 300 "$stats/err")"; fi

# exit-paths: chunkguard alone.
out=$(LD_PRELOAD=$SO timeout 20 "$B/exit_paths" 2>"$stats/err2"); rc=$?
if [ $rc -eq 0 ] && [ "$out" = ok ] && [ ! -s "$stats/err2" ]; then pass exit-paths
else fail exit-paths "rc=$rc out='$out' err=$(head -c 300 "$stats/err2")"; fi

# before-ctor
out=$(timeout 20 "$B/early_main" 2>&1); rc=$?
if [ $rc -eq 0 ] && [[ "$out" == "allocated before main; mallocs before main="[1-9]* ]]; then pass before-ctor
else fail before-ctor "rc=$rc out='$out'"; fi

# prlimit-as: 512 MiB of address space.
out=$(prlimit --as=536870912 env LD_PRELOAD=$SO /usr/bin/python3 -c 'print(len([str(i) for i in range(10**6)]))' 2>&1); rc=$?
out2=$(prlimit --as=536870912 env LD_PRELOAD=$SO "$B/exit_paths" 2>&1); rc2=$?
if [ $rc -eq 0 ] && [ "$out" = 1000000 ] && [ $rc2 -eq 0 ] && [ "$out2" = ok ]; then pass prlimit-as
else fail prlimit-as "python rc=$rc '$out'; exit_paths rc=$rc2 '$out2'"; fi

# tls-small: the PT_TLS segment's memory size.
hex=$(readelf -lW "$SO" | awk '$1=="TLS"{print $6}')
tls=$(( ${hex:-0x0} ))
if [ -n "$tls" ] && [ "$tls" -le 64 ]; then pass "tls-small ($tls bytes)"
else fail tls-small "PT_TLS memsz='$tls'"; fi

# fork-handlers-lazy: the counter preloaded after chunkguard sees its
# registrations (and the program's) in order.
"${cc[@]}" -fPIC -shared -DCOUNTER -o "$B/libatfork_count.so" "$R/tests/lifecycle/atfork_count.c" -ldl &&
"${cc[@]}" -pthread -o "$B/atfork_count" "$R/tests/lifecycle/atfork_count.c" -L"$B" -latfork_count \
    -Wl,-rpath,"$B" || fail fork-handlers-lazy-build gcc
lazy() {   # $1 = the program's argument, $2 = its expected output; $3: mode
    local out rc
    out=$(CHUNKGUARD_OPTIONS=mode=${3:-fast} LD_PRELOAD="$SO:$B/libatfork_count.so" \
          timeout 20 "$B/atfork_count" "$1" 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ "$out" = "$2" ]; then pass "fork-handlers-lazy-$1${3:+-$3}"
    else fail "fork-handlers-lazy-$1${3:+-$3}" "rc=$rc out='$out' want '$2'"; fi
}
lazy none '-'
lazy fork $'-\nchild ok\ncg'
lazy atfork $'cg user\nchild ok prepared\ncg user'
lazy thread 'cg'
lazy none 'cg' debug

# fork-handlers-early: a constructor that runs before chunkguard's
# initialisation registers a prepare handler that allocates; ours must
# still run after it (libchunkguard.a linked in, and the .so preloaded),
# in both modes.
"${cc[@]}" -pthread -o "$B/atfork_early_a" "$R/tests/lifecycle/atfork_early.c" \
    "$CG_BUILD/libchunkguard.a" -pthread -lunwind || fail fork-handlers-early-build gcc
"${cc[@]}" -pthread -o "$B/atfork_early" "$R/tests/lifecycle/atfork_early.c" ||
    fail fork-handlers-early-build gcc
for mode in fast debug; do
  for form in a so; do
    if [ $form = a ]; then
      out=$(CHUNKGUARD_OPTIONS=mode=$mode timeout 20 "$B/atfork_early_a" 2>&1); rc=$?
    else
      out=$(CHUNKGUARD_OPTIONS=mode=$mode LD_PRELOAD=$SO timeout 20 "$B/atfork_early" 2>&1); rc=$?
    fi
    if [ $rc -eq 0 ] && [ "$out" = "ok prepared=1 child=0" ]; then pass "fork-handlers-early-$form-$mode"
    else fail "fork-handlers-early-$form-$mode" "rc=$rc (124: hung) out='$(printf '%s' "$out" | head -c 300)'"; fi
  done
done

# fork-handlers-lib: a library's constructor runs before the program's, and
# its pthread_atfork (libc_nonshared.a's, linked into it) goes straight to
# libc: only the archive's .preinit_array entry registers ours first (the
# library before it ran ours first: fast mode hung or reported a deadlock
# in the library's prepare handler, debug mode a deadlock on the stack
# depot).
"${cc[@]}" -fPIC -shared -o "$B/libatfork_lib.so" "$R/tests/lifecycle/atfork_lib.c" &&
"${cc[@]}" -pthread -o "$B/atfork_lib_main" "$R/tests/lifecycle/atfork_lib_main.c" -L"$B" \
    -latfork_lib -Wl,-rpath,"$B" "$CG_BUILD/libchunkguard.a" -pthread -lunwind ||
    fail fork-handlers-lib-build gcc
for mode in fast debug; do
  out=$(CHUNKGUARD_OPTIONS=mode=$mode:deadlock_timeout_ms=2000 timeout 20 "$B/atfork_lib_main" 2>&1); rc=$?
  if [ $rc -eq 0 ] && [ "$out" = "ok prepared=2 child=0" ]; then pass "fork-handlers-lib-$mode"
  else fail "fork-handlers-lib-$mode" "rc=$rc (124: hung) out='$(printf '%s' "$out" | head -c 300)'"; fi
done

# fork-child-stack: a fork child of a threaded program linked with the
# archive records call sites only; its report's stacks are the program's
# call sites (before: chunkguard's own capture_pcs, where_here and
# cg_dbg_capture frames, and a hash of them).
"${cc[@]}" -fno-builtin -pthread -o "$B/fork_child_stack" "$R/tests/lifecycle/fork_child_stack.c" \
    "$CG_BUILD/libchunkguard.a" -pthread -lunwind || fail fork-child-stack-build gcc
for mode in debug guard; do
  out=$(CHUNKGUARD_OPTIONS=mode=$mode:symbolize=1 timeout 20 "$B/fork_child_stack" 2>&1); rc=$?
  if [ $rc -eq 134 ] && grep -q 'ERROR: chunkguard: double-free' <<<"$out" &&
     grep -q '#0 .* in child_bad_free' <<<"$out" && grep -q '^HASH: .* in child_bad_free' <<<"$out" &&
     ! grep -Eq 'capture_pcs|where_here|cg_dbg_capture|dbg_report_body' <<<"$out"; then
    pass "fork-child-stack-$mode"
  else fail "fork-child-stack-$mode" "rc=$rc $(printf '%s' "$out" | head -c 700)"; fi
done

# fork-dlopen-report: a fork child of a program whose threads load and
# unload a library (dlopen, dl_iterate_phdr) in a loop, so the loader's
# lock is often held at the fork by a thread the child does not have: each
# child's double-free report is written whole (no dlopen of the unwinder,
# no module walk in the child), with the program's call site as its frame,
# and the child dies by SIGABRT (before: the fast-mode child's first report
# primed libunwind, whose dlopen waited for ever on that lock, and no line
# of it was written).  30 children each, .so and .a, fast and debug mode.
printf 'int fdl_fn(int x) { return x + 1; }\n' > "$B/fdl.c"
"${cc[@]}" -fPIC -shared -o "$B/libfdl.so" "$B/fdl.c" || fail fork-dlopen-report-build gcc
"${cc[@]}" -fno-builtin -pthread -o "$B/fork_dlopen" "$R/tests/lifecycle/fork_dlopen.c" -ldl ||
    fail fork-dlopen-report-build gcc
"${cc[@]}" -fno-builtin -pthread -o "$B/fork_dlopen_a" "$R/tests/lifecycle/fork_dlopen.c" \
    "$CG_BUILD/libchunkguard.a" -pthread -lunwind -ldl || fail fork-dlopen-report-build gcc
for form in so a; do
  for mode in fast debug; do
    if [ $form = so ]; then
      out=$(CHUNKGUARD_OPTIONS=mode=$mode:symbolize=1 LD_PRELOAD=$SO \
            timeout 120 "$B/fork_dlopen" "$B/libfdl.so" 30 2>&1); rc=$?
    else
      out=$(CHUNKGUARD_OPTIONS=mode=$mode:symbolize=1 timeout 120 "$B/fork_dlopen_a" "$B/libfdl.so" 30 2>&1); rc=$?
    fi
    reports=$(grep -c 'ERROR: chunkguard: double-free' <<<"$out")
    frames=$(grep -c '#0 .* in child_bad_free' <<<"$out")
    if [ $rc -eq 134 ] && [ "$reports" -eq 30 ] && [ "$frames" -ge 30 ]; then
      pass "fork-dlopen-report-$form-$mode"
    else fail "fork-dlopen-report-$form-$mode" "rc=$rc (124: hung) reports=$reports frames=$frames $(grep -m1 '^child' <<<"$out")"; fi
  done
done

# loader-held-head: fast mode, a thread holds the loader's lock for ever
# (stopped in a dl_iterate_phdr callback) when the main thread frees a
# block twice: the report's priming of the unwinder (dlopen) waits for that
# lock, so its first lines are written before it (before: nothing).  The
# process then hangs there: the timeout ends it.
"${cc[@]}" -fno-builtin -pthread -o "$B/loader_held" "$R/tests/lifecycle/loader_held.c" ||
    fail loader-held-head-build gcc
out=$(CHUNKGUARD_OPTIONS=mode=fast LD_PRELOAD=$SO timeout -s KILL 5 "$B/loader_held" 2>&1); rc=$?
if grep -Eq '^==[0-9]+==ERROR: chunkguard: double-free on address' <<<"$out"; then pass loader-held-head
else fail loader-held-head "rc=$rc out='$(head -c 300 <<<"$out")'"; fi

# fork-handlers-daemon-stats: with stats_path set the handlers are there
# from the start, so a daemon() child's line counts its 3 mallocs only.
"${cc[@]}" -o "$B/daemon_stats" "$R/tests/lifecycle/daemon_stats.c" || fail daemon-stats-build gcc
dd=$(mktemp -d)
CHUNKGUARD_OPTIONS=stats_path=$dd/s.%p LD_PRELOAD="$SO" timeout 20 "$B/daemon_stats"
child() { grep -hs 'exe=[^ ]*daemon_stats ' "$dd"/s.* | grep -v ' mallocs=100 ' | head -1; }
for _ in $(seq 100); do [ -n "$(child)" ] && break; sleep 0.1; done
line=$(child)
case "$line" in
    *" mallocs=3 "*) pass fork-handlers-daemon-stats ;;
    *) fail fork-handlers-daemon-stats "child's line '$line' (files: $(cat "$dd"/s.* 2>/dev/null | tr '\n' '|'))" ;;
esac
rm -rf "$dd"

# exports: exactly the API.
want=$(printf '%s\n' _Exit _ZdaPv _ZdaPvRKSt9nothrow_t _ZdaPvSt11align_val_t \
    _ZdaPvSt11align_val_tRKSt9nothrow_t _ZdaPvm _ZdaPvmSt11align_val_t \
    _ZdlPv _ZdlPvRKSt9nothrow_t _ZdlPvSt11align_val_t \
    _ZdlPvSt11align_val_tRKSt9nothrow_t _ZdlPvm _ZdlPvmSt11align_val_t _Znam \
    _ZnamRKSt9nothrow_t _ZnamSt11align_val_t \
    _ZnamSt11align_val_tRKSt9nothrow_t _Znwm _ZnwmRKSt9nothrow_t \
    _ZnwmSt11align_val_t _ZnwmSt11align_val_tRKSt9nothrow_t __libc_calloc \
    __libc_free __libc_malloc __libc_memalign __libc_pvalloc __libc_realloc \
    __libc_valloc __register_atfork __sysv_signal _exit aligned_alloc bsd_signal calloc fork \
    cg_describe cg_get_stats cg_leak_check cg_set_report_callback \
    cg_verify_heap daemon free free_aligned_sized free_sized mallinfo mallinfo2 \
    malloc malloc_info malloc_stats malloc_trim malloc_usable_size mallopt \
    memalign posix_memalign pthread_create pvalloc realloc reallocarray sigaction signal \
    sysv_signal valloc | sort | tr '\n' ' ' | sed 's/ $//')
got=$(nm -D --defined-only "$SO" | awk '{print $3}' | sed 's/@.*//' | sort | tr '\n' ' ' | sed 's/ $//')
if [ "$got" = "$want" ]; then pass exports
else fail exports "got: $got"; fi

# stderr-closed
cat > "$B/df.c" <<'C'
#include <stdlib.h>
int main(void) { void *p = malloc(24); free(p); free(p); return 0; }
C
gcc -O0 -fno-builtin -o "$B/df" "$B/df.c"
LD_PRELOAD=$SO "$B/df" 2>&-; rc=$?
if [ $rc -eq 134 ]; then pass stderr-closed; else fail stderr-closed "exit status $rc, want 134 (SIGABRT)"; fi

# preinit-env: each way of loading chunkguard must say (verbosity=1) that
# the environment's mode and mmap threshold are in force, and the program
# must have seen environ still NULL at its first malloc.
"${cc[@]}" -o "$B/preinit_static" "$R/tests/lifecycle/preinit_env.c" "$CG_BUILD/libchunkguard.a" \
    -pthread -lunwind || fail preinit-build gcc
"${cc[@]}" -o "$B/preinit_plain" "$R/tests/lifecycle/preinit_env.c" || fail preinit-build gcc
ldso=$(readelf -lW "$B/preinit_plain" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
bad=
for how in static preload ldso; do
  case $how in
    static)  run=("$B/preinit_static");;
    preload) run=(env LD_PRELOAD="$SO" "$B/preinit_plain");;
    ldso)    run=(env LD_PRELOAD="$SO" "$ldso" "$B/preinit_plain" an argument);;
  esac
  out=$(CHUNKGUARD_OPTIONS=mode=guard:verbosity=1 GLIBC_TUNABLES=glibc.malloc.mmap_threshold=200704 \
        timeout 20 "${run[@]}" 2>&1); rc=$?
  if [ $rc -ne 0 ] || ! grep -q '^environ was NULL at the first malloc$' <<<"$out" ||
     ! grep -q '^ok$' <<<"$out" || ! grep -q 'chunkguard: guard mode;.*mmap_threshold 200704,' <<<"$out"; then
    bad+="$how: rc=$rc out=$(printf '%s' "$out" | head -c 300 | tr '\n' ';') "
  fi
done
if [ -z "$bad" ]; then pass preinit-env; else fail preinit-env "$bad"; fi

# libfuzzer-env: the recipe of docs/fuzzing.md, "Your own program".
if ! command -v clang >/dev/null; then
  fail libfuzzer-env "no clang (tools/deps.sh fuzz)"
elif ! clang -g -O1 -fsanitize=fuzzer "$R/examples/fuzz_example.c" "$CG_BUILD/libchunkguard.a" \
       -pthread -o "$B/fuzz_example" 2>"$B/lf.err"; then
  fail libfuzzer-env "clang: $(head -c 300 "$B/lf.err")"
else
  help=$(CHUNKGUARD_OPTIONS=help=1 timeout 20 "$B/fuzz_example" -runs=0 2>&1)
  hello=$(CHUNKGUARD_OPTIONS=verbosity=1:stack_depth=5 timeout 20 "$B/fuzz_example" -runs=0 2>&1)
  if grep -q 'chunkguard options (CHUNKGUARD_OPTIONS=' <<<"$help" && grep -q '^  mode=debug ' <<<"$help" &&
     grep -q 'chunkguard: debug mode;.* stack_depth 5,' <<<"$hello"; then
    pass libfuzzer-env
  else
    fail libfuzzer-env "help=1: $(printf '%s' "$help" | grep -c 'chunkguard options') option lists; verbosity=1: $(grep chunkguard: <<<"$hello" | head -c 200)"
  fi
fi
