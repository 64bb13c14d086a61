# chunkguard — build, test, demo and benchmark.
#
#   make          build/libchunkguard.so and build/libchunkguard.a (-O2 -g)
#   make check    install missing Debian packages, build, run every test;
#                 ends with "N passed, N failed"
#   make demo     the main job: buggy examples and a real program under chunkguard
#   make bench    chunkguard against glibc, one interleaved run
#
# Compile-time switches (src/config.h) can be set from the command line,
# e.g. make CG_DEFS=-DCG_CHECK_FASTTOP=0 BUILD=build/nofasttop

CC      ?= gcc
BUILD   ?= build
CG_DEFS ?=

SRCS := $(wildcard src/*.c)
HDRS := $(wildcard src/*.h src/*.def include/*.h)

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# The core must never be rewritten into calls of itself: gcc fuses
# malloc+memset into calloc and may treat our own names as builtins.
NOBUILTIN := -fno-builtin-malloc -fno-builtin-calloc -fno-builtin-realloc \
             -fno-builtin-free -fno-builtin-memalign -fno-builtin-posix_memalign
CORE_CFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
               -fno-plt -fno-stack-protector $(NOBUILTIN) $(WARN) -Iinclude -Isrc $(CG_DEFS)

OBJS    := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
CG_OBJS := $(patsubst src/%.c,$(BUILD)/cg/%.o,$(SRCS))

.PHONY: all lib check demo bench clean deps deps-demo
all: lib
lib: $(BUILD)/libchunkguard.so $(BUILD)/libchunkguard.a $(BUILD)/libchunkguard-cg.a

$(BUILD)/obj/%.o: src/%.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/cg/%.o: src/%.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -DCHUNKGUARD_PREFIXED -c $< -o $@

# libunwind (Debian's libunwind-dev for its header, libunwind8 at run time)
# walks the stacks of debug mode; src/stack.c loads it with dlopen when
# first needed, so nothing links it.  The objects only debug mode runs go
# last, so fast mode's code shares as few pages with them as possible.
DEBUG_ONLY := debug shadow quarantine leaks describe stack stackdepot symbolize render maps
LINK_OBJS  := $(filter-out $(DEBUG_ONLY:%=$(BUILD)/obj/%.o),$(OBJS)) $(DEBUG_ONLY:%=$(BUILD)/obj/%.o)
$(BUILD)/libchunkguard.so: $(OBJS) src/chunkguard.map
	$(CC) -shared -o $@ $(LINK_OBJS) -Wl,--version-script=src/chunkguard.map \
	    -Wl,-z,now -Wl,-z,relro -pthread

$(BUILD)/libchunkguard.a: $(OBJS)
	rm -f $@ && ar rcs $@ $(OBJS)

$(BUILD)/libchunkguard-cg.a: $(CG_OBJS)
	rm -f $@ && ar rcs $@ $(CG_OBJS)

# Debian packages the tests and the demo need; installed only when missing.
deps:
	@tools/deps.sh check
deps-demo:
	@tools/deps.sh demo

clean:
	rm -rf $(BUILD)

-include tests/tests.mk
-include examples/examples.mk
-include bench/bench.mk
-include fuzz/fuzz.mk

check: deps lib
	@tests/run-all.sh

# docs/options.md is generated from src/options.def (make check verifies it).
docs/options.md: tools/gen-options-doc.c src/options.def
	@mkdir -p $(BUILD)
	$(CC) -O0 -Wall -o $(BUILD)/gen-options-doc tools/gen-options-doc.c
	$(BUILD)/gen-options-doc > $@
