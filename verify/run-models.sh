#!/usr/bin/env bash
# run-models.sh OUTDIR — generate, compile and run every spin verifier listed
# in verify/models/models.list; prints "PASS name: ..." or "FAIL name: why"
# per verifier and exits 0 only when all passed.
#
# A correct model passes only when pan searched its whole state space
# (depth limit not hit: -b makes that an error; memory within -DMEMLIM)
# and found no assertion violation and no invalid end state.  A seeded
# variant passes only when spin generated and compiled it and pan then
# found the kind of error the list expects; its trail is kept in
# OUTDIR/<name>/ (replay: cd there; spin -t -p -DSEEDED_BUG=N model.pml).
#
# Environment: SPIN (spin), CC (gcc), PAN_TIMEOUT (seconds per run, 120),
# VERIFY_ONLY (a substring: run only the verifiers whose name has it),
# MODELS_LIST (another list file, same format; the suite's self-test).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run-models.sh OUTDIR}
spin=${SPIN:-spin}
cc=${CC:-gcc}
limit=${PAN_TIMEOUT:-120}
# Exhaustive search (hash-compacted states, no bitstate), safety properties
# only, fairness off, state vectors compressed, 1 GiB at most.
pan_cflags=(-O1 -w -DSAFETY -DNOFAIR -DCOLLAPSE -DMEMLIM=1024)
pan_flags=(-b -m20000 -w22)

for t in "$spin" "$cc" timeout; do
  command -v "$t" >/dev/null 2>&1 ||
    { echo "FAIL verify-tools: $t not installed (tools/deps.sh check installs spin)"; exit 1; }
done
mkdir -p "$out" || exit 1

rc=0
while read -r name model expect defs; do
  case "$name" in ''|'#'*) continue ;; esac
  [ -n "${VERIFY_ONLY:-}" ] && [[ "$name" != *"$VERIFY_ONLY"* ]] && continue
  dir=$out/$name
  rm -rf "$dir" && mkdir -p "$dir" && cp "$here"/models/*.pml "$dir"/ || { rc=1; continue; }
  start=$EPOCHREALTIME
  # shellcheck disable=SC2086  # defs is a list of -D flags
  if ! (cd "$dir" && "$spin" $defs -a "$model") >"$dir/spin.log" 2>&1; then
    echo "FAIL verify-$name: spin -a $defs $model failed"; sed 's/^/    /' "$dir/spin.log" | tail -n 15
    rc=1; continue
  fi
  if ! (cd "$dir" && "$cc" "${pan_cflags[@]}" -o pan pan.c) >"$dir/cc.log" 2>&1; then
    echo "FAIL verify-$name: compiling pan.c failed"; sed 's/^/    /' "$dir/cc.log" | tail -n 15
    rc=1; continue
  fi
  (cd "$dir" && timeout "$limit" ./pan "${pan_flags[@]}") >"$dir/pan.log" 2>&1
  prc=$?
  secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  log=$dir/pan.log
  states=$(sed -n 's/^ *\([0-9][0-9]*\) states, stored.*/\1/p' "$log" | head -n 1)
  errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
  first=$(grep -m1 -E '^pan:[0-9]+: ' "$log" | sed 's/^pan:[0-9]*: //')
  if [ "$prc" -eq 124 ]; then
    echo "FAIL verify-$name: pan ran past ${limit}s"; rc=1; continue
  fi
  if grep -qE 'out of memory|MEMLIM|depth too small|max search depth' "$log"; then
    echo "FAIL verify-$name: the search was cut short (memory or depth bound):"
    grep -E 'out of memory|MEMLIM|depth' "$log" | head -n 3 | sed 's/^/    /'
    rc=1; continue
  fi
  if [ -z "$errors" ]; then
    echo "FAIL verify-$name: pan printed no result (exit $prc)"; tail -n 10 "$log" | sed 's/^/    /'
    rc=1; continue
  fi
  case "$expect" in
    pass)
      if [ "$errors" -eq 0 ]; then
        printf 'PASS verify-%s: %s states, no errors (%s s)\n' "$name" "$states" "$secs"
      else
        echo "FAIL verify-$name: $first"
        echo "    trail: $dir (cd there; spin -t -p $defs $model)"
        rc=1
      fi ;;
    assert|deadlock)
      want='assertion violated'
      [ "$expect" = deadlock ] && want='invalid end state'
      if [ "$errors" -gt 0 ] && [[ "$first" == "$want"* ]]; then
        printf 'PASS verify-%s: rejected: %s (%s s)\n' "$name" "$first" "$secs"
      elif [ "$errors" -gt 0 ]; then
        echo "FAIL verify-$name: expected '$want', spin found: $first"; rc=1
      else
        echo "FAIL verify-$name: spin found no error in the seeded bug ($states states)"; rc=1
      fi ;;
    *)
      echo "FAIL verify-$name: models.list: unknown expectation '$expect'"; rc=1 ;;
  esac
done < "${MODELS_LIST:-$here/models/models.list}"
exit $rc
