# fuzz.mk — the fuzz harnesses (docs/fuzzing.md).  Included by the Makefile.
#
#   make fuzz-smoke     replay every corpus and fuzz/regress/, then each
#                       harness FUZZ_SMOKE_SECONDS (20) under libFuzzer and
#                       under AFL++; fails on any crash.  Time-bounded and
#                       open-ended: each run fuzzes anew
#   make fuzz-ci        what make check runs (tests/suites/65-fuzz.sh): the
#                       same replay, then each harness under both engines
#                       for a fixed number of executions from a fixed seed
#                       (FUZZ_CI_SEED, FUZZ_CI_SCALE; fuzz/tools/smoke.sh),
#                       so that every run does the same work
#   make fuzz FUZZ_SECONDS=N JOBS=J [HARNESS=ops-fast]
#                       AFL++ in parallel: one -M and J-1 -S instances, then
#                       a summary of execs, paths and crashes
#   make fuzz-cov       line coverage of src/ from replaying the corpora
#   make fuzz-build     every harness in every flavour
#
# Each harness is built four ways, all linking a libchunkguard.a (the
# standard names: chunkguard is the whole process's malloc):
#   $(FZ)/replay/H  gcc, build/libchunkguard.a, fuzz/driver.c's main (replay)
#   $(FZ)/lf/H      clang -fsanitize=fuzzer; the library instrumented too
#   $(FZ)/afl/H     afl-clang-fast, persistent mode; the library instrumented
#   $(FZ)/cov/H     gcc --coverage (fuzz-cov)

FZ        := $(BUILD)/fuzz
FZ_NAMES  := ops-fast ops-debug ops-guard ops-mt corrupt faults options
FZ_COMMON := fuzz/model.c fuzz/tune.c fuzz/common.c fuzz/signals.c fuzz/subrun.c
FZ_HDRS   := fuzz/fuzz.h fuzz/access.h fuzz/fuzz.mk $(HDRS)
FZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra $(CG_INC) -fno-builtin \
             -fno-omit-frame-pointer
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 20
JOBS      ?= 2
HARNESS   ?= ops-fast

# The options harness tests second copies of src/options.c and
# src/tunables.c whose globals are renamed, so the live allocator's options
# and parameters never change: the tunables copy's setters (cg_param_set*)
# become the harness's recorders.
FZ_RENAME := -Dcg_opt=fz_opt -Dcg_opt_given=fz_opt_given -Dcg_options_init=fz_options_init \
             -Dcg_expand_path=fz_expand_path -Dcg_default_options=fz_default_options \
             -Dcg_tunables_init=fz_tunables_init -Dcg_param_set=fz_param_set \
             -Dcg_param_set_tcache_count=fz_param_set_tcache_count \
             -Dcg_param_set_tcache_max=fz_param_set_tcache_max -Dcg_tunable_check=fz_tunable_check
FZ_UUT    := options tunables

fz_src_ops-fast  := fuzz/ops.c
fz_src_ops-debug := fuzz/ops.c
fz_src_ops-guard := fuzz/ops.c
fz_src_ops-mt    := fuzz/ops_mt.c
fz_src_faults    := fuzz/faults.c fuzz/access.c
fz_src_corrupt   := fuzz/corrupt.c
fz_src_options   := fuzz/options.c
fz_def_ops-debug := -DFZ_DEBUG
fz_def_ops-guard := -DFZ_GUARD

# flavour: compiler, extra flags, library, driver
fz_cc_replay  := $(CC)
fz_cc_lf      := clang
fz_cc_afl     := afl-clang-fast
fz_cc_cov     := gcc
fz_flag_lf    := -fsanitize=fuzzer -DFZ_LIBFUZZER
fz_flag_cov   := --coverage -DFZ_COVERAGE -Wl,--wrap=cg_os_exit
fz_lib_replay := $(BUILD)/libchunkguard.a
fz_lib_lf     := $(FZ)/lib-lf/libchunkguard.a
fz_lib_afl    := $(FZ)/lib-afl/libchunkguard.a
fz_lib_cov    := $(FZ)/lib-cov/libchunkguard.a
fz_drv_replay := fuzz/driver.c
fz_drv_afl    := fuzz/driver.c
fz_drv_cov    := fuzz/driver.c
# how the library's objects are instrumented in each flavour
fz_libdefs_lf  := -fsanitize=fuzzer-no-link
fz_libdefs_afl :=
fz_libdefs_cov := --coverage

.PHONY: fuzz fuzz-smoke fuzz-ci fuzz-cov fuzz-build fuzz-replay fuzz-deps

# clang with libFuzzer, AFL++ and gcov: installed when missing (tools/deps.sh
# fuzz), so each fuzz target works on a fresh Debian 12 as make check does.
# Order-only: installing a package does not make a harness out of date.
fuzz-deps:
	@tools/deps.sh fuzz

# The instrumented libraries: the top-level rules, another BUILD and CC.
$(FZ)/lib-%/libchunkguard.a: $(SRCS) $(HDRS) Makefile | fuzz-deps
	$(MAKE) -s BUILD=$(FZ)/lib-$* CC=$(fz_cc_$*) CG_DEFS="$(CG_DEFS) $(fz_libdefs_$*)" \
	    $(FZ)/lib-$*/libchunkguard.a

# $(1): flavour, $(2): harness
fz_uut = $(if $(filter options,$(2)),$(FZ_UUT:%=$(FZ)/$(1)/%-under-test.o))
define FZ_RULES
$(FZ)/$(1)/$(2): $(fz_src_$(2)) $(FZ_COMMON) $(fz_drv_$(1)) $(fz_lib_$(1)) $(FZ_HDRS) \
                 $(call fz_uut,$(1),$(2)) | fuzz-deps
	@mkdir -p $$(dir $$@)
	$(fz_cc_$(1)) $(FZ_CFLAGS) $(fz_flag_$(1)) $(fz_def_$(2)) \
	    $(if $(filter options,$(2)),$(FZ_RENAME)) -o $$@ $(fz_src_$(2)) $(FZ_COMMON) \
	    $(fz_drv_$(1)) $(call fz_uut,$(1),$(2)) $(fz_lib_$(1)) -pthread
endef
define FZ_OPTS_OBJ
$(FZ_UUT:%=$(FZ)/$(1)/%-under-test.o): $(FZ)/$(1)/%-under-test.o: %.c $(FZ_HDRS) | fuzz-deps
	@mkdir -p $$(dir $$@)
	$(fz_cc_$(1)) $(CORE_CFLAGS) $(fz_libdefs_$(1)) $(FZ_RENAME) -c -o $$@ $$<
endef
$(foreach f,replay lf afl cov,$(foreach h,$(FZ_NAMES),$(eval $(call FZ_RULES,$(f),$(h)))) \
    $(eval $(call FZ_OPTS_OBJ,$(f))))

fuzz-build: $(foreach f,replay lf afl,$(FZ_NAMES:%=$(FZ)/$(f)/%))

# Replay: every seed corpus and every regression input, deterministically.
fuzz-replay: $(FZ_NAMES:%=$(FZ)/replay/%)
	@fuzz/tools/smoke.sh replay $(FZ)

fuzz-smoke: lib $(foreach f,replay lf afl,$(FZ_NAMES:%=$(FZ)/$(f)/%))
	@FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) fuzz/tools/smoke.sh all $(FZ)

FUZZ_CI_SEED  ?= 1
FUZZ_CI_SCALE ?= 1
fuzz-ci: lib $(foreach f,replay lf afl,$(FZ_NAMES:%=$(FZ)/$(f)/%))
	@FUZZ_CI_SEED=$(FUZZ_CI_SEED) FUZZ_CI_SCALE=$(FUZZ_CI_SCALE) fuzz/tools/smoke.sh ci $(FZ)

fuzz: $(FZ)/afl/$(HARNESS)
	@fuzz/tools/afl-parallel.sh $(FZ)/afl/$(HARNESS) fuzz/corpus/$(HARNESS) \
	    $(FZ)/campaign/$(HARNESS) $(FUZZ_SECONDS) $(JOBS)

fuzz-cov: $(FZ_NAMES:%=$(FZ)/cov/%)
	@fuzz/tools/coverage.sh $(FZ)
