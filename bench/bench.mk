# bench/bench.mk — `make bench`: chunkguard against glibc (bench/README.md).
#
#   make bench                     full run, about 3-5 minutes on 2 cores
#   make bench BENCH_QUICK=1       about 30 s
#   make bench BENCH_PEERS=            chunkguard against glibc only (default
#                                  adds jemalloc and tcmalloc as peers)
#   make bench BENCH_CLOCK=cpu     time by process CPU time (busy machine)
#   make bench BENCH_CG=none       A/A run: nothing preloaded in the chunkguard
#                                  columns, to see the machine's noise floor
#   make bench BENCH_FAST_ONLY=1   only the fast-mode table (skip the
#                                  debug-mode table against ASan's
#                                  allocator and the whole-program runs)
#   make bench-bins                only build the programs
#
# The programs are built once with plain gcc -O2, dynamically linked, and the
# same binaries run under glibc and under LD_PRELOAD; nothing here depends on
# the core's sources.  Output: the table on stdout, build/bench/results.md
# (Markdown) and build/bench/results.json (every sample).

BENCH_DIR    := $(BUILD)/bench
BENCH_CC     := gcc
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -pthread
BENCH_PROGS  := launch lifo churn calloc realloc bigfree
BENCH_BINS   := $(patsubst %,$(BENCH_DIR)/bench-%,$(BENCH_PROGS)) $(BENCH_DIR)/bench-empty.so
BENCH_QUICK  ?=
# Peers: Debian's jemalloc and tcmalloc (tools/deps.sh bench installs
# them), so every run sets chunkguard beside glibc and two peers.
# BENCH_PEERS= (empty) runs glibc against chunkguard only.
BENCH_LIBDIR := /usr/lib/x86_64-linux-gnu
BENCH_PEERS  ?= jemalloc=$(BENCH_LIBDIR)/libjemalloc.so.2,tcmalloc=$(BENCH_LIBDIR)/libtcmalloc_minimal.so.4
BENCH_ROUNDS ?=
BENCH_CLOCK  ?=
BENCH_CG     ?= $(BUILD)/libchunkguard.so

.PHONY: bench bench-bins bench-deps

# Packages first: on a fresh machine gcc or valgrind may be missing, and
# make would otherwise start compiling the core before installing them.
bench-deps:
	@tools/deps.sh bench

ifneq ($(filter bench bench-bins,$(MAKECMDGOALS)),)
$(OBJS) $(CG_OBJS) $(BENCH_BINS): | bench-deps
endif

bench-bins: $(BENCH_BINS)

# The glibc baseline's loader-cost control (bench-empty.c, run.py).
$(BENCH_DIR)/bench-empty.so: bench/bench-empty.c bench/bench.mk
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -shared -fPIC -o $@ $<

$(BENCH_DIR)/bench-%: bench/bench-%.c bench/bench.h bench/bench.mk
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $<

bench: bench-deps lib $(BENCH_BINS)
	BENCH_QUICK='$(BENCH_QUICK)' BENCH_PEERS='$(BENCH_PEERS)' BENCH_ROUNDS='$(BENCH_ROUNDS)' \
	    BENCH_CLOCK='$(BENCH_CLOCK)' \
	    python3 bench/run.py --bin-dir $(BENCH_DIR) --cg '$(BENCH_CG)'
ifeq ($(BENCH_FAST_ONLY),)
	BENCH_QUICK='$(BENCH_QUICK)' BENCH_CLOCK='$(BENCH_CLOCK)' \
	    python3 bench/run.py --debug --bin-dir $(BENCH_DIR) --cg '$(BENCH_CG)'
	python3 bench/programs.py --cg '$(BENCH_CG)' --out $(BENCH_DIR)/programs.md
	python3 bench/forkstorm.py --cg '$(BENCH_CG)' --out $(BENCH_DIR)/forkstorm.md || true
endif
