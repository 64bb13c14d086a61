
# ---- begin cases/checks-off block (tests/cases, tests/suites/10-cases.sh,
# ---- 15-checks-off.sh; owner: the cases helper). Targets prefixed cgcases-.
#
# cgcases-bins             every tests/cases/<kind>_<variant>.c built as
#                          $(BUILD)/cases/<name>, plus the spawn helper;
#                          a C++ case (<kind>_<variant>.cc) with $(CXX).
# cgcases-off-variants     one library per check switch, with that check
#                          compiled out: $(BUILD)/off-<NAME>/libchunkguard.so.
#                          CGCASES_OFF="FASTTOP UNLINK" limits the set; the
#                          default is every switch src/report/checks.def
#                          names (CG_CHECK_ENTRY's third field,
#                          CG_PER_USE's second).
# $(BUILD)/checks.tsv      the expectation table tests/cases/lib.sh reads
#                          (Makefile), made with the binaries.
#                          Use make -j2: the variants build side by side.

CGCASES_SRCS := $(wildcard tests/cases/*_*.c)
CGCASES_CXX_SRCS := $(wildcard tests/cases/*_*.cc)
CGCASES_BINS := $(patsubst tests/cases/%.c,$(BUILD)/cases/%,$(CGCASES_SRCS)) \
                $(patsubst tests/cases/%.cc,$(BUILD)/cases/%,$(CGCASES_CXX_SRCS))
cgcases_lp := (
CGCASES_OFF  ?= $(shell sed -n -e 's/^CG_CHECK_ENTRY$(cgcases_lp)[A-Z0-9_]*, *[A-Z_]*, *\([A-Z_]*\),.*/\1/p' \
                    -e 's/^CG_PER_USE$(cgcases_lp)[A-Z0-9_]*, *\([A-Z_]*\),.*/\1/p' src/report/checks.def | \
                    grep -vx NONE | sort -u)

# -O0 and -fno-builtin keep each bug as written: at -O2 gcc may delete a
# malloc/free pair or a store into freed memory.  The warnings about those
# very bugs are silenced; they are the point.
CGCASES_CFLAGS := -std=gnu11 -O0 -g -fno-builtin -Wall \
                  -Wno-free-nonheap-object -Wno-use-after-free -Wno-unused-but-set-variable

.PHONY: cgcases-bins cgcases-off-variants
cgcases-bins: $(CGCASES_BINS) $(BUILD)/cases/spawn $(BUILD)/checks.tsv

$(BUILD)/cases/spawn: tests/cases/harness/spawn.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -o $@ $<

$(BUILD)/cases/%: tests/cases/%.c tests/cases/case.h
	@mkdir -p $(dir $@)
	$(CC) $(CGCASES_CFLAGS) -o $@ $<

# C++ cases: the same, with the warnings about mismatched new and delete
# (the point of most of them) silenced.  C++17, whose sized and aligned
# operator delete forms the compiler calls.
CGCASES_CXXFLAGS := -std=gnu++17 -O0 -g -fno-builtin -Wall -Wno-mismatched-new-delete \
                    -Wno-free-nonheap-object
$(BUILD)/cases/%: tests/cases/%.cc tests/cases/case.h
	@mkdir -p $(dir $@)
	$(CXX) $(CGCASES_CXXFLAGS) -o $@ $<

# Each variant is its own make run (its own BUILD dir and CG_DEFS); only the
# preloaded .so is built, the test needs nothing else.  CG_REUSE=$(BUILD):
# the objects the switch does not reach are copies of the default build's
# (make lib first, as 15-checks-off does, or they are all compiled).  The sub-make decides
# whether the variant is up to date, so these targets always run it.
cgcases-off-variants: $(addprefix cgcases-off-,$(CGCASES_OFF))

cgcases-off-%:
	@$(MAKE) --no-print-directory -s BUILD=$(BUILD)/off-$* CG_DEFS=-DCG_CHECK_$*=0 \
	    CG_REUSE=$(BUILD) $(BUILD)/off-$*/libchunkguard.so
# ---- end cases/checks-off block

# ---- begin unit/threads/sanitizers block (tests/unit, tests/suites/20-unit.sh,
# ---- 30-threads.sh, 35-sanitizers.sh; owner: the unit-tests helper).
# ---- Targets and variables prefixed ut-/UT_.
#
# The tests in tests/unit are written once against tests/unit/api.h and
# built three ways:
#   ut-so       standard names linked against libchunkguard.so (which comes
#               before libc in the link, so it serves every call):
#               $(BUILD)/unit/so/{unit,diff,stress,forkthreads,churn}
#   ut-glibc    the same sources on plain glibc, the reference that shows
#               each expectation is glibc 2.36's:  $(BUILD)/unit/glibc/...
#   ut-asan     the cg_-named core compiled from src/*.c with ASan+UBSan
#               into $(BUILD)/asan/core/, with unit and diff on top
#   ut-tsan     the same under TSan ($(BUILD)/tsan/core/), with stress
# ut-all builds all four.  Sanitizer builds use clang (UT_SAN_CC).

UT_DIR     := tests/unit
UT_CC      ?= $(CC)
UT_SAN_CC  ?= clang
UT_HDRS    := $(UT_DIR)/api.h $(UT_DIR)/util.h include/chunkguard.h
UT_CASES   := $(wildcard $(UT_DIR)/test_*.c)
UT_PROGS   := diff stress forkthreads churn
# -fno-builtin: the tests pass impossible sizes and pair malloc/free on
# purpose; the compiler must call the allocator, not reason about it.
UT_CFLAGS  := -std=gnu11 -O2 -g -fno-builtin -Wall -Wextra -Iinclude -I$(UT_DIR)
# libchunkguard.so first among the libraries, kept even if as-needed is
# the default, and found at run time without LD_LIBRARY_PATH.
UT_SO_LINK := -L$(BUILD) -Wl,--no-as-needed -lchunkguard -Wl,--as-needed \
              -Wl,-rpath,$(abspath $(BUILD))
UT_ASAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
UT_TSAN    := -fsanitize=thread -fno-omit-frame-pointer
UT_SRCS    := $(notdir $(SRCS))
UT_ASAN_CORE := $(patsubst %.c,$(BUILD)/asan/core/%.o,$(UT_SRCS))
UT_TSAN_CORE := $(patsubst %.c,$(BUILD)/tsan/core/%.o,$(UT_SRCS))
# the demangler is libiberty's object, the same in every build (Makefile)
UT_ASAN_CORE += $(IBERTY_O)
UT_TSAN_CORE += $(IBERTY_O)

.PHONY: ut-all ut-so ut-glibc ut-asan ut-tsan ut-mutant
ut-all: ut-so ut-glibc ut-asan ut-tsan ut-mutant
# The tests over glibc with one contract broken at a time (mutants.c); run
# by tests/unit/mutants.sh to show every test can fail.
ut-mutant: $(BUILD)/unit/mutant/unit $(addprefix $(BUILD)/unit/mutant/,$(UT_PROGS))
ut-so: $(BUILD)/unit/so/unit $(addprefix $(BUILD)/unit/so/,$(UT_PROGS))
ut-glibc: $(BUILD)/unit/glibc/unit $(addprefix $(BUILD)/unit/glibc/,$(UT_PROGS))
ut-asan: $(BUILD)/asan/unit $(BUILD)/asan/diff
ut-tsan: $(BUILD)/tsan/stress

$(BUILD)/unit/so/unit: $(UT_CASES) $(UT_HDRS) $(BUILD)/libchunkguard.so
	@mkdir -p $(dir $@)
	$(UT_CC) $(UT_CFLAGS) -o $@ $(UT_CASES) $(UT_SO_LINK) -lcriterion -pthread -ldl

$(BUILD)/unit/so/%: $(UT_DIR)/%.c $(UT_HDRS) $(BUILD)/libchunkguard.so
	@mkdir -p $(dir $@)
	$(UT_CC) $(UT_CFLAGS) -o $@ $< $(UT_SO_LINK) -pthread

$(BUILD)/unit/glibc/unit: $(UT_CASES) $(UT_HDRS)
	@mkdir -p $(dir $@)
	$(UT_CC) $(UT_CFLAGS) -DUT_GLIBC -o $@ $(UT_CASES) -lcriterion -pthread -ldl

$(BUILD)/unit/glibc/%: $(UT_DIR)/%.c $(UT_HDRS)
	@mkdir -p $(dir $@)
	$(UT_CC) $(UT_CFLAGS) -DUT_GLIBC -o $@ $< -pthread

UT_MUT := $(UT_DIR)/mutants.c $(UT_DIR)/mutants.h
$(BUILD)/unit/mutant/unit: $(UT_CASES) $(UT_HDRS) $(UT_MUT)
	@mkdir -p $(dir $@)
	$(UT_CC) $(UT_CFLAGS) -DUT_MUTANT -o $@ $(UT_CASES) $(UT_DIR)/mutants.c -lcriterion -pthread -ldl

$(BUILD)/unit/mutant/%: $(UT_DIR)/%.c $(UT_HDRS) $(UT_MUT)
	@mkdir -p $(dir $@)
	$(UT_CC) $(UT_CFLAGS) -DUT_MUTANT -o $@ $< $(UT_DIR)/mutants.c -pthread

# The core as the top Makefile compiles it (CORE_CFLAGS, cg_ names), plus
# the sanitizer: its own memory accesses are checked too.  Test builds:
# every "caller holds the lock" contract is checked (CG_LOCK_ASSERTS).
$(BUILD)/asan/core/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(UT_SAN_CC) $(CORE_CFLAGS) -DCHUNKGUARD_PREFIXED -DCG_LOCK_ASSERTS=1 $(UT_ASAN) -c $< -o $@

$(BUILD)/tsan/core/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(UT_SAN_CC) $(CORE_CFLAGS) -DCHUNKGUARD_PREFIXED -DCG_LOCK_ASSERTS=1 $(UT_TSAN) -c $< -o $@

$(BUILD)/asan/unit: $(UT_CASES) $(UT_HDRS) $(UT_ASAN_CORE)
	$(UT_SAN_CC) $(UT_CFLAGS) -DCHUNKGUARD_PREFIXED $(UT_ASAN) -o $@ $(UT_CASES) \
	    $(UT_ASAN_CORE) -lcriterion -pthread -ldl -lunwind

$(BUILD)/asan/diff: $(UT_DIR)/diff.c $(UT_HDRS) $(UT_ASAN_CORE)
	$(UT_SAN_CC) $(UT_CFLAGS) -DCHUNKGUARD_PREFIXED $(UT_ASAN) -o $@ $< $(UT_ASAN_CORE) -pthread -lunwind

$(BUILD)/tsan/stress: $(UT_DIR)/stress.c $(UT_HDRS) $(UT_TSAN_CORE)
	$(UT_SAN_CC) $(UT_CFLAGS) -DCHUNKGUARD_PREFIXED $(UT_TSAN) -o $@ $< $(UT_TSAN_CORE) -pthread -lunwind
# ---- end unit/threads/sanitizers block

# ---- begin stacks block (tests/unit/stk_*.c, tests/suites/25-stacks.sh;
# ---- owner: the stacks helper).  Targets and variables prefixed stk-/STK_.
#
# The tests of src/stack.c, stackdepot.c and symbolize.c, which are internal
# (hidden) and so linked statically from libchunkguard-cg.a:
#   stk-unit   $(BUILD)/stacks/unit (Criterion), its fixture modules
#              libstk_fixture.so and libstk_fixture_stripped.so, and mutants:
#              the same tests with stack.c built without one safeguard
#              ($(BUILD)/stacks/unit-<mutant>), which the test of that
#              safeguard must fail (25-stacks.sh checks)
#   stk-asan   the same tests on the ASan+UBSan core ($(BUILD)/asan/core) as
#              $(BUILD)/asan/stacks (without the counting malloc)
#   stk-tsan   $(BUILD)/tsan/stk_threads: threads capturing and storing
#              stacks at once, on the TSan core (Criterion cannot run under
#              TSan here)

STK_DIR    := tests/unit
STK_CASES  := $(STK_DIR)/stk_capture.c $(STK_DIR)/stk_depot.c $(STK_DIR)/stk_symbolize.c
STK_HDRS   := $(STK_DIR)/stk_util.h src/debug/stack.h src/debug/stackdepot.h src/report/symbolize.h
STK_OUT    := $(BUILD)/stacks
STK_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra $(CG_INC) -I$(STK_DIR) -DCHUNKGUARD_PREFIXED \
              -DSTK_FIXTURE_DIR='"$(abspath $(STK_OUT))"'
STK_LIBS   := -lcriterion -lunwind -ldl -pthread
# A frame with no unwind information at all (libunwind must guess it).
STK_NOCFI  := -std=gnu11 -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables \
              -fno-omit-frame-pointer
STK_MUTANTS := nofdguard noerrno globalcache
STK_MUT_nofdguard := -DCG_STACK_FD_GUARD=0
STK_MUT_noerrno   := -DCG_STACK_KEEP_ERRNO=0
STK_MUT_globalcache := -DCG_STACK_CACHE_NONE=0
STK_FIXTURES := $(STK_OUT)/libstk_fixture.so $(STK_OUT)/libstk_fixture_stripped.so

.PHONY: stk-unit stk-asan stk-tsan
stk-unit: $(STK_OUT)/unit $(addprefix $(STK_OUT)/unit-,$(STK_MUTANTS)) $(STK_FIXTURES)
stk-asan: $(BUILD)/asan/stacks $(STK_FIXTURES)
stk-tsan: $(BUILD)/tsan/stk_threads

$(STK_OUT)/libstk_fixture.so: $(STK_DIR)/stk_fixture.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared -o $@ $<

$(STK_OUT)/libstk_fixture_stripped.so: $(STK_OUT)/libstk_fixture.so
	strip --strip-all -o $@ $<

$(STK_OUT)/nocfi.o: $(STK_DIR)/stk_nocfi.c
	@mkdir -p $(dir $@)
	$(CC) $(STK_NOCFI) -c $< -o $@

$(STK_OUT)/unit: $(STK_CASES) $(STK_DIR)/stk_shim.c $(STK_HDRS) $(STK_OUT)/nocfi.o \
                 $(BUILD)/libchunkguard-cg.a
	$(CC) $(STK_CFLAGS) -o $@ $(STK_CASES) $(STK_DIR)/stk_shim.c $(STK_OUT)/nocfi.o \
	    $(BUILD)/libchunkguard-cg.a $(STK_LIBS)

# A mutant's stack.o comes before the archive, so the archive's is not used.
.PRECIOUS: $(STK_OUT)/stack-%.o
$(STK_OUT)/stack-%.o: $(call cg_src,stack) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -DCHUNKGUARD_PREFIXED $(STK_MUT_$*) -c $< -o $@

$(STK_OUT)/unit-%: $(STK_OUT)/stack-%.o $(STK_CASES) $(STK_DIR)/stk_shim.c $(STK_HDRS) \
                   $(STK_OUT)/nocfi.o $(BUILD)/libchunkguard-cg.a
	$(CC) $(STK_CFLAGS) -o $@ $(STK_CASES) $(STK_DIR)/stk_shim.c $(STK_OUT)/nocfi.o $< \
	    $(BUILD)/libchunkguard-cg.a $(STK_LIBS)

$(STK_OUT)/asan-nocfi.o: $(STK_DIR)/stk_nocfi.c
	@mkdir -p $(dir $@)
	$(UT_SAN_CC) $(STK_NOCFI) -c $< -o $@

$(BUILD)/asan/stacks: $(STK_CASES) $(STK_HDRS) $(STK_OUT)/asan-nocfi.o $(UT_ASAN_CORE)
	$(UT_SAN_CC) $(STK_CFLAGS) $(UT_ASAN) -o $@ $(STK_CASES) $(STK_OUT)/asan-nocfi.o \
	    $(UT_ASAN_CORE) $(STK_LIBS)

$(BUILD)/tsan/stk_threads: $(STK_DIR)/stk_threads.c $(STK_HDRS) $(UT_TSAN_CORE)
	$(UT_SAN_CC) -std=gnu11 -O2 -g -Wall -Wextra $(CG_INC) -DCHUNKGUARD_PREFIXED $(UT_TSAN) \
	    -o $@ $< $(UT_TSAN_CORE) -lunwind -pthread
# ---- end stacks block
