#!/usr/bin/env bash
# 12-checks.sh — the catalogue of checks (src/report/checks.def) and what is
# made from it.
#
#   checks-table           tools/gen-checks builds and prints the
#                          expectation table ($CG_BUILD/checks.tsv)
#   checks-doc-current     docs/reports.md's tables are what gen-checks
#                          prints (make docs/reports.md rewrites them)
# Environment: CG_ROOT, CG_BUILD (tests/run-all.sh).
set -uo pipefail
R=$CG_ROOT
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if make -s -C "$R" BUILD="$CG_BUILD" "$CG_BUILD/checks.tsv" >"$tmp/make" 2>&1 &&
   [ -s "$CG_BUILD/checks.tsv" ]; then
  echo "PASS checks-table ($(wc -l <"$CG_BUILD/checks.tsv") entries)"
else
  echo "FAIL checks-table: $(head -c 300 "$tmp/make")"; exit 0
fi

if "$CG_BUILD/gen-checks" doc <"$R/docs/reports.md" | diff -u "$R/docs/reports.md" - >"$tmp/diff"; then
  echo "PASS checks-doc-current"
else
  echo "FAIL checks-doc-current: docs/reports.md is stale; run make docs/reports.md: $(head -c 300 "$tmp/diff")"
fi

exit 0
