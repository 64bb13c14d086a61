#!/bin/bash -eu
# build.sh — OSS-Fuzz / ClusterFuzzLite build: every harness in fuzz/ into
# $OUT, with its seed corpus (<name>_seed_corpus.zip) and, for options, its
# dictionary.  Honours $CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE $OUT
# as OSS-Fuzz sets them.  The library is compiled with $CFLAGS too (so it
# is instrumented), but ASan is refused: chunkguard must be the process's
# only malloc (project.yaml declares the undefined-behaviour sanitizer).
SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC_DIR"
case " $CFLAGS " in
  *-fsanitize=address*|*-fsanitize=memory*)
    echo "build.sh: chunkguard replaces malloc; ASan/MSan cannot share the process" >&2
    exit 1 ;;
esac
B=${WORK:-/tmp}/chunkguard-build
rm -rf "$B"
# the standard-named library, instrumented with the engine's flags
make -s BUILD="$B" CC="$CC" CG_DEFS="$CFLAGS" "$B/libchunkguard.a"
INC="-Iinclude $(for d in src/*/; do printf -- "-I%s " "${d%/}"; done)"
FCF="-std=gnu11 -O1 -g $INC -fno-builtin $CFLAGS"
# second copies of the parsers under test, globals renamed (fuzz/fuzz.mk)
RENAME="-Dcg_opt=fz_opt -Dcg_opt_given=fz_opt_given -Dcg_options_init=fz_options_init \
        -Dcg_expand_path=fz_expand_path -Dcg_default_options=fz_default_options \
        -Dcg_tunables_init=fz_tunables_init -Dcg_param_set=fz_param_set \
        -Dcg_param_set_tcache_count=fz_param_set_tcache_count \
        -Dcg_param_set_tcache_max=fz_param_set_tcache_max"
UUT=""
for u in options tunables; do
  $CC -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec $INC \
      $CFLAGS $RENAME -c src/*/$u.c -o "$B/$u-under-test.o"
  UUT="$UUT $B/$u-under-test.o"
done
build() {   # build NAME SOURCE [FLAGS...]
  local name=$1 src=$2; shift 2
  local extra=""
  [ "$name" = options ] && extra=$UUT
  $CC $FCF "$@" -c "$src" -o "$B/$name.o" ${extra:+$RENAME}
  $CC $FCF -c fuzz/model.c -o "$B/model.o"
  $CC $FCF -c fuzz/tune.c -o "$B/tune.o"
  $CC $FCF -c fuzz/common.c -o "$B/common.o"
  $CC $FCF -c fuzz/signals.c -o "$B/signals.o"
  $CC $FCF -DFZ_LIBFUZZER -c fuzz/subrun.c -o "$B/subrun.o"   # see subrun.c
  # the engine's main is C++: link with $CXX
  $CXX $CXXFLAGS "$B/$name.o" "$B/model.o" "$B/tune.o" "$B/common.o" "$B/signals.o" "$B/subrun.o" \
      $extra $LIB_FUZZING_ENGINE "$B/libchunkguard.a" \
      -pthread -o "$OUT/$name"
  (cd "fuzz/corpus/$name" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
}
build ops-fast fuzz/ops.c
build ops-debug fuzz/ops.c -DFZ_DEBUG
build ops-mt fuzz/ops_mt.c
build corrupt fuzz/corrupt.c
build options fuzz/options.c
cp fuzz/options.dict "$OUT/options.dict"
