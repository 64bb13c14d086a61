#!/usr/bin/env bash
# 65-fuzz.sh — `make fuzz-smoke` (fuzz/tools/smoke.sh): every seed corpus
# and regression input replayed, then each harness 20 s under libFuzzer and
# 20 s under AFL++; plus proof that the corrupt harness's oracle can fail:
# with fill_free=1 the poison is the very byte the seed's use after free
# writes, so debug mode cannot see it, and the harness must abort.
set -u
R=$CG_ROOT
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
make -s -C "$R" BUILD="$CG_BUILD" fuzz-smoke >"$tmp/smoke" 2>&1; rc=$?
grep -E '^(PASS|FAIL) ' "$tmp/smoke"
if ! grep -q '^FAIL ' "$tmp/smoke" && { [ $rc != 0 ] || ! grep -q '^PASS ' "$tmp/smoke"; }; then
    echo "FAIL fuzz-smoke: make fuzz-smoke exited $rc: $(tail -c 500 "$tmp/smoke")"
fi
for seed in uaf-write-0; do
    CHUNKGUARD_OPTIONS=fill_free=1 timeout 60 "$CG_BUILD/fuzz/replay/corrupt" \
        "$R/fuzz/corpus/corrupt/$seed" >"$tmp/out" 2>&1; rc=$?
    if [ $rc = 134 ] && grep -q 'fuzz: debug mode missed an injected' "$tmp/out"; then
        echo "PASS fuzz-oracle-fails-when-blinded-$seed"
    else
        echo "FAIL fuzz-oracle-fails-when-blinded-$seed: rc=$rc $(tail -c 300 "$tmp/out")"
    fi
done
