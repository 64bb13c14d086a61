#!/usr/bin/env bash
# 50-fastpath.sh — single-threaded processes take no lock and execute no
# atomic instruction inside chunkguard (issue 2, "Fast paths").
#
# Environment: CG_ROOT, CG_BUILD, CG_SO as set by tests/run-all.sh.
# Prints PASS/FAIL lines:
#   fastpath-unit            parser and classifier unit tests
#   fastpath-selftest-*      the checker, run on stand-in libraries
#                            (tools/fastpath/toy.c), passes the correct one
#                            and fails each broken one on the right check
#   fastpath-st-no-futex     strace: no futex call, single-threaded
#   fastpath-st-no-atomic    callgrind: no atomic of libchunkguard.so ran
#   fastpath-mt-atomics-seen the control: with a second thread, some did
#   fastpath-cold-pages      fast mode maps no page of the library's cold
#                            segments (debug and report code, unwind tables)
#   fastpath-cold-pages-control  debug mode does map them (the check can fail)
#   fastpath-cold-pages-exit  nor does its exit path (chunkguard's destructor;
#                            the check runs in a destructor preloaded after it)
#   fastpath-warm-pages-exit  a malloc/free-only program (bench-lifo's pattern)
#                            maps no page of the hot objects' warm code
#                            (.cg_warm: all but the CG_HOT_TEXT functions),
#                            start-up and exit path included
#   fastpath-warm-pages-control  the same with CHUNKGUARD_OPTIONS set, whose
#                            parser is warm, does (the check can fail)
#   fastpath-cold-objs       the link map puts the code of every object of
#                            src/debug/ (but Makefile COLD_EXEMPT) and of
#                            COLD_EXTRA in the cold segment (tools/check-cold.py)
#   fastpath-cold-objs-control  the same objects linked with guard.o left out
#                            of the cold list: the check names guard
#   fastpath-binfull-free-ir  a free whose tcache bin is full, at a fastbin
#                            size, stays within an instruction budget
#                            (callgrind, tools/fastpath/binfull.c)
# Exit status: 0 when every line is PASS, else 1.  Takes well under a minute.
set -uo pipefail
: "${CG_ROOT:?}" "${CG_BUILD:?}" "${CG_SO:?}"
PY=/usr/bin/python3
CHECK=$CG_ROOT/tools/check-fastpath.sh
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

if [ ! -x "$PY" ]; then
  fail fastpath-unit "no $PY (tools/deps.sh check installs python3)"
elif out=$("$PY" -m unittest discover -s "$CG_ROOT/tools/fastpath" -p 'test_*.py' 2>&1); then
  pass fastpath-unit
else
  echo "$out" | tail -20
  fail fastpath-unit "unit tests of tools/fastpath failed"
fi

# result FILE CHECK: the status word ("ok"/"FAIL") of one RESULT line.
result() { sed -n "s/^RESULT $2 \([a-zA-Z]*\) .*/\1/p" "$1"; }

if ! make -s -j2 -C "$CG_ROOT" BUILD="$CG_BUILD" fastpath-toys fastpath-driver >/dev/null; then
  fail fastpath-selftest "cannot build the driver and the stand-in libraries"
else
  # Each stand-in and the single check it must fail ("-" = none may fail).
  for spec in ok:- atomic:st-atomic futex:st-futex never:mt-atomic; do
    toy=${spec%%:*}; want=${spec#*:}
    log=$CG_BUILD/fastpath/selftest-$toy.log
    "$CHECK" --so "$CG_BUILD/fastpath/toy-$toy.so" --out "$CG_BUILD/fastpath/selftest-$toy" >"$log" 2>&1
    rc=$?
    bad=""
    for c in st-futex st-atomic mt-atomic; do
      got=$(result "$log" "$c")
      if [ "$c" = "$want" ]; then exp=FAIL; else exp=ok; fi
      [ "$got" = "$exp" ] || bad="$bad $c=${got:-missing}(want $exp)"
    done
    want_rc=1; [ "$want" = "-" ] && want_rc=0
    [ "$rc" -eq "$want_rc" ] || bad="$bad exit=$rc(want $want_rc)"
    if [ -z "$bad" ]; then
      pass "fastpath-selftest-$toy"
    else
      tail -15 "$log"
      fail "fastpath-selftest-$toy" "checker misjudged toy-$toy.so:$bad"
    fi
  done
fi

# The real library.
log=$CG_BUILD/fastpath/check-fastpath.log
mkdir -p "$CG_BUILD/fastpath"
if ! make -s -C "$CG_ROOT" BUILD="$CG_BUILD" lib >"$log" 2>&1; then
  tail -10 "$log"
  for t in st-no-futex st-no-atomic mt-atomics-seen st-sampled-no-atomic; do
    fail "fastpath-$t" "cannot build $CG_SO"
  done
else
  out=$CG_BUILD/fastpath/out-suite
  "$CHECK" --so "$CG_SO" --out "$out" >"$log" 2>&1
  rc=$?
  # The full listing is in $log; here only atomics that ran, and the rest.
  grep -Ev '^(ST|MT): +0 x ' "$log"
  for pair in st-futex:st-no-futex st-atomic:st-no-atomic mt-atomic:mt-atomics-seen \
              st-sampled-atomic:st-sampled-no-atomic; do
    c=${pair%%:*}; name=fastpath-${pair#*:}
    line=$(grep "^RESULT $c " "$log")
    case "$(result "$log" "$c")" in
      ok) pass "$name" ;;
      FAIL)
        why=${line#RESULT }
        # Name the culprits: the atomic instructions that ran single-threaded.
        [ "$c" = st-atomic ] &&
          why="$why; ran: $(grep -E '^ST: +[1-9][0-9]* x ' "$out/atomics.st.txt" |
                            awk '{ printf "%s%s@%s", sep, $5, $4; sep = ", " }')"
        fail "$name" "$why" ;;
      *) fail "$name" "no result (check-fastpath.sh exit $rc: $(grep '^check-fastpath:' "$log" | tail -1))" ;;
    esac
  done
fi
# The cold segments (Makefile COLD_OBJS): untouched in fast mode, touched in
# debug mode, which runs that code.
if ! make -s -C "$CG_ROOT" BUILD="$CG_BUILD" fastpath-coldpages >/dev/null; then
  fail fastpath-cold-pages "cannot build tools/fastpath/coldpages.c"
else
  out=$(LD_PRELOAD=$CG_SO "$CG_BUILD/fastpath/coldpages" 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^RESULT cold-pages ok' <<<"$out"; then
    pass fastpath-cold-pages
  else
    echo "$out" | tail -5
    fail fastpath-cold-pages "exit $rc: $(grep '^RESULT' <<<"$out")"
  fi
  out=$(CHUNKGUARD_OPTIONS=mode=debug LD_PRELOAD=$CG_SO "$CG_BUILD/fastpath/coldpages" 2>&1); rc=$?
  if [ "$rc" -eq 1 ] && grep -q '^RESULT cold-pages FAIL .* cold ' <<<"$out"; then
    pass fastpath-cold-pages-control
  else
    echo "$out" | tail -5
    fail fastpath-cold-pages-control "debug mode should map cold pages; exit $rc: $(grep '^RESULT' <<<"$out")"
  fi
  # after the exit path too: the kernel's peak RSS (wait4) counts it
  out=$(LD_PRELOAD="$CG_SO $CG_BUILD/fastpath/coldpages-exit.so" "$CG_BUILD/fastpath/coldpages" 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^RESULT cold-pages-exit ok' <<<"$out"; then
    pass fastpath-cold-pages-exit
  else
    echo "$out" | tail -5
    fail fastpath-cold-pages-exit "exit $rc: $(grep '^RESULT' <<<"$out")"
  fi
  # the code every malloc/free program runs is all in .text (CG_HOT_TEXT)
  out=$(COLDPAGES_WORKLOAD=lifo LD_PRELOAD="$CG_SO $CG_BUILD/fastpath/coldpages-exit.so" \
        "$CG_BUILD/fastpath/coldpages" 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^RESULT warm-pages-exit ok' <<<"$out"; then
    pass fastpath-warm-pages-exit
  else
    echo "$out" | tail -5
    fail fastpath-warm-pages-exit "exit $rc: $(grep '^RESULT' <<<"$out" | tr '\n' ' ')"
  fi
  out=$(CHUNKGUARD_OPTIONS=mode=fast COLDPAGES_WORKLOAD=lifo \
        LD_PRELOAD="$CG_SO $CG_BUILD/fastpath/coldpages-exit.so" "$CG_BUILD/fastpath/coldpages" 2>&1); rc=$?
  if [ "$rc" -eq 1 ] && grep -q '^RESULT warm-pages-exit FAIL [0-9]* warm pages mapped' <<<"$out"; then
    pass fastpath-warm-pages-control
  else
    echo "$out" | tail -5
    fail fastpath-warm-pages-control "the option parser's warm pages were not seen; exit $rc: $(grep '^RESULT' <<<"$out" | tr '\n' ' ')"
  fi
fi
# The cold list itself (Makefile COLD_OBJS) is complete: no object that only
# debug mode or a report runs has its code in the hot .text.
out=$(make -s -C "$CG_ROOT" BUILD="$CG_BUILD" cold-check 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q '^RESULT cold-objs ok' <<<"$out"; then
  pass fastpath-cold-objs
else
  echo "$out" | tail -5
  fail fastpath-cold-objs "exit $rc: $(grep -E '^(RESULT|hot:)' <<<"$out" | tr '\n' ' ')"
fi
out=$(make -s -C "$CG_ROOT" BUILD="$CG_BUILD" COLD_SEEDED=guard cold-check-seeded 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -q '^RESULT cold-objs FAIL guard$' <<<"$out"; then
  pass fastpath-cold-objs-control
else
  echo "$out" | tail -5
  fail fastpath-cold-objs-control "guard.o left out of the cold list was not named; exit $rc: $(grep '^RESULT' <<<"$out")"
fi
# A free whose tcache bin is full, at a fastbin size (tools/fastpath/binfull.c):
# its instructions per call, callgrind's count of free_batch over its free
# calls, within a budget glibc's own free meets on the same program; a
# hand-off that builds its call value, frame and marks for a plain fastbin
# push is over it (docs/performance.md, "Session 20 (perf20)").  Takes
# CG_BINFULL_SO, when set, instead of $CG_SO (to show the budget failing on
# an older library).
BINFULL_BUDGET=125
bf_so=${CG_BINFULL_SO:-$CG_SO}
if ! command -v valgrind >/dev/null; then
  fail fastpath-binfull-free-ir "no valgrind (tools/deps.sh check installs it)"
elif ! make -s -C "$CG_ROOT" BUILD="$CG_BUILD" fastpath-binfull >/dev/null; then
  fail fastpath-binfull-free-ir "cannot build tools/fastpath/binfull.c"
else
  bf_out=$CG_BUILD/fastpath/binfull.callgrind
  rm -f "$bf_out"
  out=$(LD_PRELOAD=$bf_so valgrind --tool=callgrind --toggle-collect=free_batch \
          --callgrind-out-file="$bf_out" "$CG_BUILD/fastpath/binfull" 2000 2>/dev/null); rc=$?
  frees=$(sed -n 's/^frees=//p' <<<"$out")
  ir=$(sed -n 's/^summary: *//p' "$bf_out" 2>/dev/null)
  if [ "$rc" -ne 0 ] || [ -z "$frees" ] || [ -z "$ir" ] || [ "$ir" -eq 0 ]; then
    fail fastpath-binfull-free-ir "no measurement (exit $rc, frees=${frees:-?}, Ir=${ir:-?})"
  else
    per=$(( (ir + frees / 2) / frees ))
    if [ "$per" -le "$BINFULL_BUDGET" ]; then
      echo "binfull: $per Ir a free (budget $BINFULL_BUDGET)"
      pass fastpath-binfull-free-ir
    else
      fail fastpath-binfull-free-ir "$per Ir a free, over the budget of $BINFULL_BUDGET"
    fi
  fi
fi
[ "$fails" -eq 0 ]
