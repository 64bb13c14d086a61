#!/usr/bin/env bash
# 60-verify.sh — make verify: the spin models of verify/models/ (fastbins,
# lock elision, the free path's check, fork handlers), one PASS/FAIL line
# per correct model and per seeded-bug variant (issue 4 points 7 and 8).
# Then a self-test of the runner: given a seeded bug listed as correct, and
# a correct model listed as a seeded bug, it must fail both — so a broken
# runner cannot turn the lines above into passes.
# Environment: CG_ROOT, CG_BUILD (set by tests/run-all.sh).
set -uo pipefail
rc=0
command -v spin >/dev/null 2>&1 ||
  { echo "FAIL tool-spin: spin not installed (tools/deps.sh check installs it)"; exit 1; }

make -s --no-print-directory -C "$CG_ROOT" BUILD="$CG_BUILD" verify || rc=1

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
