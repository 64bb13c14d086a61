#!/usr/bin/env bash
# 05-layers.sh — the shape of src/ (docs/design.md, "Layers"):
#   layers-one-way          no #include and no symbol reference between the
#                           folders of src/ runs upward against src/LAYERS
#   layers-seeded-include   the check fails on an upward include seeded into
#                           a copy of the tree (base/fmt.c including debug.h)
#   layers-seeded-call      ... and on an upward call: an object of base/
#                           that calls debug mode's stack depot
#   os-access-base-only     no object outside src/base calls the OS (system
#                           calls, files, getenv, the loader, stdio)
#   os-access-seeded        the check fails on a seeded getenv in core/
#   os-env-seeded           ... and on a getenv in base/ outside platform.c
#                           (only cg_os_getenv finds the environment before
#                           libc sets environ)
set -u
R=$CG_ROOT; B=$CG_BUILD/layers; OBJ=$CG_BUILD/obj
rm -rf "$B"; mkdir -p "$B"
make -s -C "$R" lib >/dev/null || { echo "FAIL layers-build: make lib"; exit 1; }
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

if out=$(python3 "$R/tools/check-layers.py" --src "$R/src" --objs "$OBJ" 2>&1); then
  pass layers-one-way
else
  fail layers-one-way "$(printf '%s' "$out" | head -20 | tr '\n' ';')"
fi

# A copy of the tree with one upward include; the real objects.
cp -r "$R/src" "$B/src"
sed -i '0,/#include "fmt.h"/s//#include "fmt.h"\n#include "debug.h"/' "$B/src/base/fmt.c"
out=$(python3 "$R/tools/check-layers.py" --src "$B/src" --objs "$OBJ" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q 'upward include: .*base/fmt.c:[0-9]* includes .*debug/debug.h (base -> debug)' <<<"$out"; then
  pass layers-seeded-include
else
  fail layers-seeded-include "status $rc: $(printf '%s' "$out" | tail -3 | tr '\n' ';')"
fi

# seeded NAME FILE CODE CHECKER PATTERN — a clean copy of the tree and
# its objects plus one seeded object FILE (a path under src/) compiled from
# CODE: CHECKER must exit 1 and print a line matching PATTERN.
seeded() {
  local name=$1 file=$2 code=$3 checker=$4 pattern=$5 out rc
  rm -rf "$B/src" "$B/obj"; cp -r "$R/src" "$B/src"; cp -r "$OBJ" "$B/obj"
  printf '%s\n' "$code" > "$B/$file"
  gcc -c -O1 -o "$B/obj/zz_seed.o" "$B/$file" || { fail "$name" gcc; return; }
  out=$(python3 "$R/tools/$checker" --src "$B/src" --objs "$B/obj" 2>&1); rc=$?
  if [ $rc -eq 1 ] && grep -q -- "$pattern" <<<"$out"; then pass "$name"
  else fail "$name" "status $rc: $(printf '%s' "$out" | tail -3 | tr '\n' ';')"; fi
}

seeded layers-seeded-call src/base/zz_seed.c '#include <stddef.h>
#include <stdint.h>
uint32_t cg_stack_put(const uintptr_t *pcs, size_t n);
uint32_t zz_seed(const uintptr_t *pcs);
uint32_t zz_seed(const uintptr_t *pcs) { return cg_stack_put(pcs, 1); }' check-layers.py \
  'upward call: .*base/zz_seed.c uses cg_stack_put of .*debug/stackdepot.c (base -> debug)'

if out=$(python3 "$R/tools/check-os-access.py" --src "$R/src" --objs "$OBJ" 2>&1); then
  pass os-access-base-only
else
  fail os-access-base-only "$(printf '%s' "$out" | head -20 | tr '\n' ';')"
fi

seeded os-access-seeded src/core/zz_seed.c '#include <stdlib.h>
const char *zz_seed(void);
const char *zz_seed(void) { return getenv("ZZ_SEED"); }' check-os-access.py \
  'os access: .*core/zz_seed.c calls getenv'

seeded os-env-seeded src/base/zz_seed.c '#include <stdlib.h>
const char *zz_seed(void);
const char *zz_seed(void) { return getenv("ZZ_SEED"); }' check-os-access.py \
  'os access: .*base/zz_seed.c reads getenv (outside .*base/platform.c)'
rm -rf "$B"
