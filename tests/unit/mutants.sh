#!/usr/bin/env bash
# mutants.sh BUILD_DIR — show that each test fails when the contract it
# checks is broken.  BUILD_DIR/unit/mutant/ holds the unit tests and
# programs built with -DUT_MUTANT (glibc behind tests/unit/mutants.c);
# for every mutant below, the named Criterion test (or program run) must
# FAIL, and with no mutant selected it must pass.  Prints
# "PASS mutant-<name>-caught-by-<test>" or a FAIL line per pair; exit
# status 0 only when every mutant was caught and every baseline passed.
set -uo pipefail
b=${1:?usage: mutants.sh BUILD_DIR}/unit/mutant
rc=0

# mutant | criterion filter (suite/test) or "prog:<name> <args>"
pairs='
free-clobbers-errno    malloc/free_preserves_errno
calloc-no-zero         calloc/zeroes_reused_dirty_memory
calloc-no-zero         prog:diff -n 20000
realloc-half-copy      realloc/keeps_prefix_across_classes
realloc-half-copy      realloc/repeated_growth_and_shrink
realloc-half-copy      align/realloc_of_aligned_block
realloc-half-copy      prog:diff -n 20000
realloc-half-copy      prog:stress -t 4 -n 20000
memalign-ignores-align align/memalign_every_power_of_two
memalign-ignores-align align/aligned_alloc_every_power_of_two
memalign-ignores-align align/posix_memalign_every_power_of_two
memalign-ignores-align align/mixed_with_malloc
memalign-ignores-align align/memalign_rounds_odd_alignment_up
memalign-ignores-align prog:diff -n 20000
huge-no-errno          limits/malloc_huge_fails_enomem
huge-no-errno          limits/exhaustion_under_rlimit_as
posix-memalign-writes  align/posix_memalign_errors_leave_memptr
usable-too-small       malloc/usable_size_at_least_request
usable-too-small       prog:diff -n 20000
malloc0-shared         malloc/zero_gives_unique_pointers
realloc0-keeps         realloc/zero_frees_and_returns_null
reallocarray-overflow  limits/reallocarray_overflow_fails_and_keeps_block
realloc-fail-frees     limits/realloc_huge_fails_and_keeps_block
realloc-null-fresh     realloc/null_is_malloc
mxfast-no-limit        mallopt/mxfast_default_and_limits
mxfast-ignored         mallopt/mxfast_160
mxfast-ignored         mallopt/mxfast_zero_disables_fastbins
perturb-ignored        mallopt/perturb_fills
trim-noop              malloc_trim/releases_free_pages
arena-max-ignored      mallopt/arena_max_one_keeps_one_arena
arenas-single          mallopt/threads_get_arenas_by_default
trim-threshold-ignored mallopt/trim_threshold_high_keeps_memory
mmap-threshold-ignored mallopt/mmap_threshold
mallinfo2-zero         mallinfo2/counts_heap_and_mmap
stats-silent           malloc_stats/prints_arena_summary
info-ignores-options   malloc_info/xml_and_einval
valloc-unaligned       align/valloc_and_pvalloc
calloc-wraps           limits/calloc_huge_and_overflow_fail_enomem
usable-overlaps        prog:diff -n 20000
free-leaks-small       prog:churn -n 2000 -w 200
lock-without-atfork    prog:forkthreads -t 8 -f 100
'

# run MUTANT TEST — exit status of one run (124 when it hung: timeout).
run() {
  local m=$1 t=$2
  if [[ $t == prog:* ]]; then
    t=${t#prog:}
    # shellcheck disable=SC2086
    UT_MUTANT=$m timeout -k 5 30 $b/$t >/dev/null 2>&1
  else
    UT_MUTANT=$m timeout -k 5 60 "$b/unit" --filter "$t" -j1 >/dev/null 2>&1
  fi
}

declare -A base
while read -r m t; do
  [ -z "$m" ] && continue
  name="mutant-$m-caught-by-$(echo "${t#prog:}" | cut -d' ' -f1)"
  if [ -z "${base[$t]:-}" ]; then
    run "" "$t"; base[$t]=$?
  fi
  if [ "${base[$t]}" -ne 0 ]; then
    echo "FAIL $name: fails even without the mutant (status ${base[$t]})"; rc=1; continue
  fi
  run "$m" "$t"; st=$?
  if [ "$st" -ne 0 ]; then echo "PASS $name"; else echo "FAIL $name: test passed with the defect"; rc=1; fi
done <<<"$pairs"
exit $rc
