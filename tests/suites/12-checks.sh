#!/usr/bin/env bash
# 12-checks.sh — the catalogue of checks (src/report/checks.def) and what is
# made from it.
#
#   checks-table           tools/gen-checks builds and prints the
#                          expectation table ($CG_BUILD/checks.tsv)
#   checks-doc-current     docs/reports.md's tables are what gen-checks
#                          prints (make docs/reports.md rewrites them)
#   checks-covered         every entry has a test: a case whose expect line
#                          names it (tests/cases/*.c or .cc, id=<ID>; 10-cases
#                          judges the report against the entry), for a
#                          heap-check kind a case of tests/heapcheck/
#                          hc_corrupt.c (HC_<ID>), or a suite line
#                          "# covers checks.def: <ID> ..." beside the test
#                          that matches its report; an entry with none
#                          fails, unless tests/cases/uncovered.txt lists it
#                          (the known debt: an entry listed there that has
#                          a test, or is no entry, fails too)
#   checks-covered-seeded  the same check fails on the table with one entry
#                          added that nothing tests
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

# uncovered TABLE — print one line per problem: an entry without a test
# and not in the debt list, or a debt-list line that should go.
uncovered() {
  local table=$1 tested debt id kind
  tested=$( { sed -s -n '1s/^\/\* expect: .* id=\([A-Z0-9_]*\)[ ].*/\1/p' "$R"/tests/cases/*_*.c \
                "$R"/tests/cases/*_*.cc
              sed -n 's/^ *{ "[^"]*", HC_\([A-Z0-9_]*\),.*/\1/p' "$R/tests/heapcheck/hc_corrupt.c" |
                sed 's/^/verify:/'
              sed -n 's/^# covers checks\.def: //p' "$R"/tests/suites/*.sh | tr ' ' '\n'
            } | sed '/^$/d' | sort -u)
  debt=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$R/tests/cases/uncovered.txt" | sort -u)
  while IFS=$'\t' read -r kind id _; do
    local key=$id
    [ "$kind" = verify ] && key=verify:$id
    if grep -qxF -e "$key" <<<"$tested"; then
      grep -qxF -e "$id" <<<"$debt" && echo "$id has a test now: take it out of tests/cases/uncovered.txt"
    elif ! grep -qxF -e "$id" <<<"$debt"; then
      echo "$id ($kind) has no test"
    fi
  done <"$table"
  for id in $debt; do
    awk -F'\t' -v id="$id" '$2 == id { f = 1 } END { exit !f }' "$table" ||
      echo "tests/cases/uncovered.txt lists $id, which is no entry of the catalogue"
  done
}

problems=$(uncovered "$CG_BUILD/checks.tsv")
if [ -z "$problems" ]; then
  echo "PASS checks-covered ($(grep -c . "$CG_BUILD/checks.tsv") entries; $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$R/tests/cases/uncovered.txt" | wc -l) listed as not yet tested)"
else
  echo "FAIL checks-covered: $(tr '\n' ';' <<<"$problems")"
fi

# A check added to the catalogue without a case test must fail the check.
cp "$CG_BUILD/checks.tsv" "$tmp/seeded.tsv"
printf 'check\tSEEDED_UNTESTED\theap-corruption\tCG_CHECK_UNLINK\t\ta check nothing tests\n' >>"$tmp/seeded.tsv"
problems=$(uncovered "$tmp/seeded.tsv")
if [ "$problems" = "SEEDED_UNTESTED (check) has no test" ]; then
  echo "PASS checks-covered-seeded"
else
  echo "FAIL checks-covered-seeded: the seeded entry gave '$(tr '\n' ';' <<<"$problems")'"
fi
exit 0
