#!/usr/bin/env bash
# deps.sh {check|demo|bench|command|lib|verify|fuzz} — install the Debian packages a target needs,
# only those missing (we run as root on Debian 12, as CI does).
set -euo pipefail
common=(gcc make python3 libunwind-dev)
case "${1:-check}" in
  check) pkgs=("${common[@]}" libcriterion-dev clang libclang-rt-14-dev afl++ valgrind strace
               sqlite3 xz-utils tar git perl coreutils procps util-linux spin man-db pkgconf binutils
               llvm) ;;   # llvm: llvm-symbolizer, which reports run (tests/suites/26-symbolize.sh)
  demo)  pkgs=("${common[@]}" procps binutils) ;;
  # tests/suites/70-command.sh: the SARIF schema's validator, a browser for
  # the HTML report, and the symbolizers tools/chunkguard runs
  command) pkgs=("${common[@]}" python3-jsonschema chromium binutils llvm) ;;
  lib)   pkgs=("${common[@]}" valgrind libiberty-dev) ;;   # valgrind: the client requests' headers; libiberty-dev: the C++ demangler
  verify) pkgs=(gcc make coreutils spin) ;;   # make verify: spin generates pan.c, gcc builds it
  # make fuzz, fuzz-smoke, fuzz-ci, fuzz-cov: libFuzzer (clang and its
  # runtime), AFL++, and gcc's gcov for the coverage listing
  fuzz)  pkgs=("${common[@]}" clang libclang-rt-14-dev afl++ valgrind libiberty-dev) ;;
  bench) pkgs=("${common[@]}" valgrind procps libjemalloc2 libtcmalloc-minimal4 libasan8 sqlite3) ;;
  *) echo "usage: $0 {check|demo|bench|command|lib|verify|fuzz}" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing packages and not root; install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
