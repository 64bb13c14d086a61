# lib.sh — shared by tests/suites/10-cases.sh, 12-checks.sh and
# 15-checks-off.sh: read a case's expectations from its header and the
# catalogue of checks, and judge one run of it.
# Source it; it defines functions only (prefix cgcase_) and sets no options.
#
# A case file tests/cases/<kind>_<variant>.c starts with two comments:
#   /* expect: signal=SIG<NAME> token=<token> check=CG_CHECK_<NAME>|none id=<ID> [addr=printed] [options=<CHUNKGUARD_OPTIONS>] */
#   /* glibc: <glibc's message> | SIGSEGV | none */
# id=<ID>: the entry of src/report/checks.def whose report the case gets;
# its token and switch must be the header's token= and check= (none: the
# check has no compile-time switch), and the report's second line must be
# "<function>(): <its sentence>", quoting its glibc message as
# (glibc: "<message>") exactly when it has one.  addr=printed: the case
# writes "cg-expect-addr=0x<hex>" to stdout before the bug, and the report
# must name that address.  options=...: the case runs under chunkguard
# with CHUNKGUARD_OPTIONS set to it (no spaces), e.g. options=mode=debug
# for a check of debug mode; a debug-mode report's first line ends in
# " [thread T<n>]", which the judge then requires (mode=guard too).  A
# fault's report (first line ending "at pc 0x...") must have the access as
# its second line and the sentence, indented, as its third.
#
# The catalogue is read from its expectation table, $CGCASE_TABLE
# (default $CG_BUILD/checks.tsv, made by `make $CG_BUILD/checks.tsv`:
# tools/gen-checks.c table), one check a line, tab-separated:
#   check|verify  ID  token  CG_CHECK_<NAME>|none|-  glibc-or-empty  sentence

# cgcase_field FILE KEY — print the value of KEY from FILE's expect line
# (empty when absent).  Exit status 0.
cgcase_field() {
  sed -n '1,5{s/^\/\* expect: \(.*\) \*\/$/\1/p}' "$1" | tr ' ' '\n' |
    sed -n "s/^$2=//p" | head -n 1
}

# cgcase_glibc FILE — print FILE's glibc expectation: a message, a signal
# name, or "none".  Exit status 0.
cgcase_glibc() {
  sed -n '1,5{s/^\/\* glibc: \(.*\) \*\/$/\1/p}' "$1" | head -n 1
}

# cgcase_hexnorm HEX — print 0x-prefixed HEX in lower case without leading
# zeros, so two spellings of one address compare equal.  Exit status 0.
cgcase_hexnorm() {
  local h=${1#0x}; h=${h#0X}; h=$(printf '%s' "$h" | tr 'A-F' 'a-f' | sed 's/^0*//')
  printf '0x%s\n' "${h:-0}"
}

# cgcase_table — print the path of the expectation table.  Exit status 0.
cgcase_table() {
  printf '%s\n' "${CGCASE_TABLE:-$CG_BUILD/checks.tsv}"
}

# cgcase_entry ID N — print field N (1-6, as above) of check ID's line in
# the expectation table; nothing for an unknown ID.  Exit status 0.
cgcase_entry() {
  awk -F'\t' -v id="$1" -v n="$2" '$2 == id { print $n; exit }' "$(cgcase_table)"
}

# cgcase_run SPAWN BIN SO OUTDIR [SRC] — run case binary BIN once,
# preloading library SO (empty: plain glibc, under setarch -R so glibc's
# outcome does not depend on address randomisation) with the options of
# case source SRC's expect line (options=; none without SRC or for glibc).
# Leaves OUTDIR/out, OUTDIR/err and sets CGCASE_PID and CGCASE_END
# ("signal=SIGABRT" or "exit=N").
# Exit status: that of the spawn helper (0 when the case ran).
cgcase_run() {
  local spawn=$1 bin=$2 so=$3 dir=$4 src=${5:-} line opts=
  mkdir -p "$dir"
  [ -n "$src" ] && opts=$(cgcase_field "$src" options)
  # debug mode samples 1 block in 256 into a guard slot by default, whose
  # reports are a guarded block's: a case aims at a debug block
  case ":$opts:" in *:mode=debug:*) case ":$opts:" in *:guard_sample=*) ;; *) opts=$opts:guard_sample=0 ;; esac ;; esac
  if [ -n "$so" ]; then
    # symbolize=0: a case's report is judged by its first lines and a
    # frame's form, not its file:line (26-symbolize.sh tests those), and a
    # symbolizer run per case took 47 of 10-cases' 160 s
    line=$(env CHUNKGUARD_OPTIONS="symbolize=0${opts:+:$opts}" LD_PRELOAD="$so" "$spawn" "$dir/out" "$dir/err" "$bin") ||
      return $?
  else
    line=$("$spawn" "$dir/out" "$dir/err" setarch x86_64 -R "$bin") || return $?
  fi
  CGCASE_PID=$(printf '%s\n' "$line" | sed -n 's/^pid=\([0-9]*\) .*/\1/p')
  CGCASE_END=${line#pid=* }
}

# cgcase_judge SRC DIR — judge a chunkguard run left in DIR by cgcase_run
# against SRC's expect line.  Prints nothing and succeeds on a match;
# otherwise prints the first mismatch (one line) and fails.
cgcase_judge() {
  local src=$1 dir=$2 sig token check id addr l1 l2 want got eglibc etext thread=
  sig=$(cgcase_field "$src" signal); token=$(cgcase_field "$src" token)
  check=$(cgcase_field "$src" check); addr=$(cgcase_field "$src" addr)
  id=$(cgcase_field "$src" id)
  if [ -z "$sig" ] || [ -z "$token" ] || [ -z "$check" ] || [ -z "$id" ]; then
    echo "header lacks signal=, token=, check= or id="; return 1
  fi
  if [ "$(cgcase_entry "$id" 1)" != check ]; then
    echo "id=$id is no check of src/report/checks.def ($(cgcase_table))"; return 1
  fi
  if [ "$(cgcase_entry "$id" 3)" != "$token" ] || [ "$(cgcase_entry "$id" 4)" != "$check" ]; then
    echo "header says token=$token check=$check, the catalogue's $id has" \
      "$(cgcase_entry "$id" 3) and $(cgcase_entry "$id" 4)"
    return 1
  fi
  if [ "$CGCASE_END" != "signal=$sig" ]; then
    echo "ended with $CGCASE_END, expected signal=$sig; stderr: $(head -c 300 "$dir/err" | tr '\n' '|')"
    return 1
  fi
  l1=$(sed -n 1p "$dir/err"); l2=$(sed -n 2p "$dir/err")
  case ":$(cgcase_field "$src" options | tr , :):" in     # ':' or ',' between options
    *:mode=debug:*|*:mode=guard:*) thread=' \[thread T[0-9]+\]' ;;
  esac
  # A fault's report (guard pages, a wild pointer) is laid out as ASan's:
  # the first line ends "at pc 0x...", the second is the access ("READ of
  # size 1 at 0x... thread T0"), the third the sentence, indented.
  local fault=
  if printf '%s\n' "$l1" | grep -Eq " at pc 0x[0-9a-fA-F]+\$"; then
    fault=1
    if ! printf '%s\n' "$l1" |
        grep -Eq "^==$CGCASE_PID==ERROR: chunkguard: $token on address 0x[0-9a-fA-F]+ at pc 0x[0-9a-fA-F]+\$" ||
       ! printf '%s\n' "$l2" | grep -Eq "^(READ|WRITE|EXECUTE|ACCESS).* at 0x[0-9a-fA-F]+ thread T[0-9]+\$"; then
      echo "fault report's first lines are '$l1' and '$l2', expected '==$CGCASE_PID==ERROR: chunkguard: $token on address 0x... at pc 0x...' and 'READ|WRITE ... at 0x... thread T<n>'"
      return 1
    fi
    l2="$(sed -n 3p "$dir/err" | sed 's/^    /(): /')"
  elif ! printf '%s\n' "$l1" |
      grep -Eq "^==$CGCASE_PID==ERROR: chunkguard: $token on address 0x[0-9a-fA-F]+$thread\$"; then
    echo "first stderr line is '$l1', expected '==$CGCASE_PID==ERROR: chunkguard: $token on address 0x...${thread:+ [thread T<n>]}'"
    return 1
  fi
  if [ "$addr" = printed ]; then
    want=$(sed -n 's/^cg-expect-addr=//p' "$dir/out" | head -n 1)
    [ -n "$want" ] || { echo "case printed no cg-expect-addr line"; return 1; }
    got=$(sed -n 1p "$dir/err" | sed -e 's/.* on address //' -e 's/ .*//')
    if [ "$(cgcase_hexnorm "$got")" != "$(cgcase_hexnorm "$want")" ]; then
      echo "report names address $got, the bad pointer was $want"; return 1
    fi
  fi
  etext=$(cgcase_entry "$id" 6); eglibc=$(cgcase_entry "$id" 5)
  if ! printf '%s\n' "$l2" | grep -qF -e "(): $etext"; then
    echo "second stderr line '$l2' does not say $id's sentence '$etext'"; return 1
  fi
  if [ -n "$eglibc" ] && ! printf '%s\n' "$l2" | grep -qF -e "(glibc: \"$eglibc\")"; then
    echo "second stderr line '$l2' does not quote $id's glibc message '$eglibc'"; return 1
  fi
  if [ -z "$eglibc" ] && printf '%s\n' "$l2" | grep -qF -e "(glibc: "; then
    echo "second stderr line '$l2' quotes glibc, $id has no glibc message"; return 1
  fi
  if ! sed -n '3,$p' "$dir/err" |
      grep -Eq '^[[:space:]]+#0 0x[0-9a-fA-F]+ .*\(.+\+0x[0-9a-fA-F]+\)( \(inlined\))?$'; then
    echo "no '#0 0x... (module+0x...)' frame line after the check line"; return 1
  fi
  return 0
}

# cgcase_judge_glibc SRC DIR — judge a plain-glibc run left in DIR against
# SRC's glibc line: "SIGSEGV"-like names a death by that signal; a message
# must be glibc's first stderr line, followed by SIGABRT.  Prints nothing
# and succeeds on a match (and for "none"); otherwise prints why and fails.
cgcase_judge_glibc() {
  local src=$1 dir=$2 want l1
  want=$(cgcase_glibc "$src")
  case "$want" in
    none) return 0 ;;
    "") echo "header lacks a glibc: line"; return 1 ;;
    SIG*)
      [ "$CGCASE_END" = "signal=$want" ] && return 0
      echo "glibc run ended with $CGCASE_END, expected signal=$want"; return 1 ;;
  esac
  l1=$(sed -n 1p "$dir/err")
  if [ "$CGCASE_END" != signal=SIGABRT ] || [ "$l1" != "$want" ]; then
    echo "glibc run ended with $CGCASE_END and '$l1', expected SIGABRT and '$want'"
    return 1
  fi
}
