#!/usr/bin/env bash
# 60-verify.sh — make verify: the spin models of verify/models/ (fastbins,
# lock elision, the free path's check, fork handlers, debug mode's give-back), one PASS/FAIL line
# per correct model and per seeded-bug variant (issue 4 points 7 and 8).
# A check that fork.pml still models the order src/entry/init.c takes the locks in,
# and that giveback.pml still models give_back's steps in src/debug/debug.c.
# Then a self-test of the runner: given a seeded bug listed as correct, and
# a correct model listed as a seeded bug, it must fail both — so a broken
# runner cannot turn the lines above into passes.
# Environment: CG_ROOT, CG_BUILD (set by tests/run-all.sh).
set -uo pipefail
rc=0
command -v spin >/dev/null 2>&1 ||
  { echo "FAIL tool-spin: spin not installed (tools/deps.sh check installs it)"; exit 1; }

make -s --no-print-directory -C "$CG_ROOT" BUILD="$CG_BUILD" verify || rc=1

# fork.pml models fork_prepare's lock order: it must be src/entry/init.c's order,
# or the model checks an order the C no longer has.
model=$CG_ROOT/verify/models/fork.pml
c_order=$(sed -n '/^\(CG_FORK_PATH \)\?static void fork_prepare/,/^}/p' "$CG_ROOT/src/entry/init.c" |
  grep -oE 'cg_[a-z]+_lock[a-z_]*|cg_os_stdio_list_lock' | while read -r f; do
    case "$f" in
      cg_os_stdio_list_lock)  echo IOLIST ;;
      cg_quarantine_lock_all) echo QUAR ;;
      cg_gpool_lock_all)      echo GUARD ;;
      cg_shadow_lock_all)     echo SHADOW ;;
      cg_stackdepot_lock)     echo DEPOT ;;
      cg_arenas_lock_all)     echo ARENAS ;;
      cg_big_lock_all)        echo BIG ;;
      cg_report_lock_all)     echo REPORT ;;
      cg_symbolize_lock_all)  echo SYMB ;;
      cg_lockdep_lock_all)    echo LOCKDEP ;;
      *)                      echo "unmodelled:$f" ;;
    esac
  done | tr '\n' ' ')
m_order=$(gcc -E -P -x c "$model" 2>/dev/null | sed -n '/^inline fork_prepare/,/^}/p' |
  grep -oE 'cg_lock\([0-9]+\)|arenas_lock_all\(\)' | while read -r t; do
    case "$t" in
      arenas_lock_all*) echo ARENAS ;;
      *) n=${t//[!0-9]/}
         sed -n "s/^#define \([A-Z0-9]*\) *$n\$/\1/p" "$model" | grep -vE '^(NL|NOPS|NWORKERS)$' | head -n 1 ;;
    esac
  done | tr '\n' ' ')
if [ -n "$c_order" ] && [ "$c_order" = "$m_order" ]; then
  echo "PASS verify-fork-order-matches-init.c"
else
  echo "FAIL verify-fork-order-matches-init.c: src/entry/init.c fork_prepare takes [$c_order], fork.pml models [$m_order]"
  rc=1
fi

# giveback.pml models give_back's order (giving set, the unbind, the
# core's free, giving cleared) and the second look after a failed start
# check (lookup, shared by free, realloc and malloc_usable_size):
# src/debug/debug.c must still have both.
dbg=$CG_ROOT/src/debug/debug.c
gb_order=$(sed -n '/^static void give_back(/,/^}/p' "$dbg" |
  grep -oE 'giving, (user|NULL)|cg_shadow_delete|cg_core_free' | tr '\n' ' ')
gb_want='giving, user cg_shadow_delete cg_core_free giving, NULL '
if [ "$gb_order" = "$gb_want" ] &&
   sed -n '/^static cg_shadow_t \*lookup(/,/^}/p' "$dbg" |
     grep -qF '(r == NULL || cg_shadow_user(r) != p) && (wait_giving(p) || r != NULL)'; then
  echo "PASS verify-giveback-order-matches-debug.c"
else
  echo "FAIL verify-giveback-order-matches-debug.c: give_back does [$gb_order] (giveback.pml models [$gb_want]), or lookup no longer looks again after a failed start check"
  rc=1
fi

self=$CG_BUILD/verify-selftest
mkdir -p "$self"
cat > "$self/models.list" <<'LIST'
wrong-pass  fastbin.pml      pass    -DSEEDED_BUG=2
wrong-bug   lockelision.pml  assert
LIST
MODELS_LIST=$self/models.list "$CG_ROOT/verify/run-models.sh" "$self/out" > "$self/log" 2>&1
src=$?
if [ "$src" -ne 0 ] && grep -q '^FAIL verify-wrong-pass: assertion violated' "$self/log" &&
   grep -q '^FAIL verify-wrong-bug: spin found no error' "$self/log"; then
  echo "PASS verify-runner-selftest"
else
  echo "FAIL verify-runner-selftest: the runner did not fail a mislabelled model (exit $src)"
  sed 's/^/    /' "$self/log"
  rc=1
fi
exit $rc
