# chunkguard — build, test, demo and benchmark.
#
#   make          build/libchunkguard.so and build/libchunkguard.a (-O2 -g)
#   make check    install missing Debian packages, build, run every test;
#                 ends with "N passed, N failed"
#   make demo     the main job: buggy examples and a real program under chunkguard
#   make bench    chunkguard against glibc, one interleaved run
#   make install  the libraries, header, chunkguard.pc, command and man pages
#                 (PREFIX=/usr/local DESTDIR=; pkg/install.mk); make uninstall
#
# Compile-time switches (src/base/config.h, and the checks' CG_CHECK_*
# switches of src/report/checks.def) can be set from the command line,
# e.g. make CG_DEFS=-DCG_CHECK_FASTTOP=0 BUILD=build/nofasttop

CC      ?= gcc
BUILD   ?= build
CG_DEFS ?=

# src/ is layered, top to bottom: entry debug core report base (src/LAYERS,
# docs/design.md).  Each folder is an include directory; a file includes
# only its own folder's headers and those of the folders below it
# (tools/check-layers.py, run by make check).  Objects are named by file,
# so every file name is unique across the folders.
SRC_DIRS := $(addprefix src/,$(shell sed -n 's/^\([a-z]*\).*/\1/p' src/LAYERS))
SRCS := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c))
HDRS := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.h $(d)/*.def)) $(wildcard include/*.h)
CG_INC := -Iinclude $(SRC_DIRS:%=-I%)
vpath %.c $(SRC_DIRS)
# The path of one source file by name: $(call cg_src,heapcheck)
cg_src = $(firstword $(foreach d,$(SRC_DIRS),$(wildcard $(d)/$(1).c)))

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Werror=implicit-function-declaration
# The core must never be rewritten into calls of itself: gcc fuses
# malloc+memset into calloc and may treat our own names as builtins.
NOBUILTIN := -fno-builtin-malloc -fno-builtin-calloc -fno-builtin-realloc \
             -fno-builtin-free -fno-builtin-memalign -fno-builtin-posix_memalign
CORE_CFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -ftls-model=initial-exec \
               -fno-plt -fno-stack-protector $(NOBUILTIN) $(WARN) $(CG_INC) $(CG_DEFS)

# The version: CG_ABI is the SONAME's number, bumped by any change that
# breaks a program linked against an earlier build; CG_VERSION is
# $(CG_ABI).MINOR.PATCH, the installed file's real name and chunkguard.pc's.
CG_ABI     := 0
CG_VERSION := $(CG_ABI).1.0
CG_SONAME  := libchunkguard.so.$(CG_ABI)

OBJS    := $(patsubst %.c,$(BUILD)/obj/%.o,$(notdir $(SRCS)))
CG_OBJS := $(patsubst %.c,$(BUILD)/cg/%.o,$(notdir $(SRCS)))

.PHONY: all lib check demo bench clean deps deps-demo
all: lib
lib: $(BUILD)/libchunkguard.so $(BUILD)/libchunkguard.a $(BUILD)/libchunkguard-cg.a

# CG_REUSE=DIR, in a build with CG_DEFS (a check compiled out): DIR is the
# default build of the same tree, and each object of a file that CG_DEFS
# do not reach (the same preprocessed text) is a copy of DIR's when that
# is up to date (tools/reuse-obj.sh); only the others are compiled.
CG_REUSE ?=
$(BUILD)/obj/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(if $(CG_REUSE),tools/reuse-obj.sh $(CG_REUSE)/obj/$*.o $@ "$(CG_DEFS)" $^ -- \
	    $(CC) $(filter-out $(CG_DEFS),$(CORE_CFLAGS)) -c $<,$(CC) $(CORE_CFLAGS) -c $< -o $@)

$(BUILD)/cg/%.o: %.c $(HDRS) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -DCHUNKGUARD_PREFIXED -c $< -o $@

# valgrind's client requests (src/base/vgclient.c) need its headers,
# valgrind/valgrind.h and valgrind/memcheck.h, from Debian's valgrind
# package: installed when missing (tools/deps.sh lib), so that `make lib`
# builds on a fresh Debian 12.  Nothing links valgrind.
VG_HEADER := /usr/include/valgrind/memcheck.h
$(VG_HEADER):
	@tools/deps.sh lib
$(BUILD)/obj/vgclient.o $(BUILD)/cg/vgclient.o: $(VG_HEADER)

# libunwind (Debian's libunwind-dev for its header, libunwind8 at run time)
# walks the stacks of debug mode; src/stack.c loads it with dlopen when
# first needed, so nothing links it.
#
# Every page of a mapped library that the kernel finds in the page cache
# next to a touched one (fault-around, 64 kB) counts in the process's RSS,
# and in a 2 MB process that fixed cost is what the memory benchmark sees.
# So the shared library is laid out in separate mappings: the code and
# constants of COLD_OBJS (debug mode, reports, malloc_info) in a segment of
# their own, fenced by unmapped pages, which a fast-mode process never
# touches; and the unwind tables (.eh_frame_hdr/.eh_frame, read only when a
# stack is walked) apart from the constants fast mode reads.  Functions of
# these objects that run in every process carry CG_STARTUP (platform.h).
# tests/suites/50-fastpath.sh checks that fast mode maps no page of either.
# The fork handlers and what they call, in both kinds of object, carry
# CG_FORK_PATH and go together in .cg_fork, at the start of the hot
# segment: a forked child maps each 64 kB window of code it runs with a
# page fault of its own, and that path runs in every child (issue 13
# point 2, docs/performance.md).
# valgrind's tools name functions only inside .text, so the cold objects'
# frames (and the warm code's, below) show as ??? under callgrind or
# memcheck: `make COLD_SEGMENT=0` links everything into .text (e.g. to
# profile debug mode with callgrind).
COLD_SEGMENT ?= 1
comma := ,
LAYOUT_LDFLAGS := $(if $(filter 1,$(COLD_SEGMENT)),-Wl$(comma)-T$(comma)$(BUILD)/layout.ld)
COLD_OBJS := debug pattern shadow quarantine leaks describe stack stackdepot stackmemo symbolize render maps \
             report checks fmt info fault heapcheck lockdep reentry cxx guard guardpool dthread insn \
             demangle reuse
# Objects not compiled from src/ that go to the cold segment too: libiberty's
# demangler (below), which only a report with C++ names runs.
COLD_EXTRA := iberty
# The objects of src/debug/ that stay hot on purpose: sample.o, whose
# start-up fast mode runs (the sampler's count-down is on the inline paths).
# Every other object of src/debug/ must be cold: tools/check-cold.py reads
# the link map and says which is not (tests/suites/50-fastpath.sh,
# fastpath-cold-objs; its control links with one left out).
COLD_EXEMPT := sample
# The other objects' code is hot or warm: the functions every fast-mode
# process runs (start-up, exit, malloc, free, calloc, realloc down to the
# arena and big blocks) carry CG_HOT_TEXT (platform.h) and stay in .text;
# the rest of these objects' code (.text and gcc's .text.unlikely parts)
# goes to .cg_warm, a segment of its own between two unmapped pages, so
# that a malloc/free program maps about half of the code it used to
# (docs/performance.md, rss18; 50-fastpath's fastpath-warm-pages-exit).
# The constructors and destructors (.text.startup, .text.exit), the cold
# objects' CG_STARTUP functions and libgcc's code stay in .text too.
# The linker script of a layout whose cold segment holds the objects $(1).
cg_layout = { echo 'SECTIONS {'; \
	  echo '  . = ALIGN(CONSTANT (MAXPAGESIZE)) + CONSTANT (MAXPAGESIZE);'; \
	  echo '  .cg_cold : {'; \
	  for o in $(1); do echo "    */$$o.o(.text .text.unlikely .rodata .rodata.*)"; done; \
	  echo '  }'; \
	  echo '  . = ALIGN(CONSTANT (MAXPAGESIZE)) + CONSTANT (MAXPAGESIZE);'; \
	  echo '  .cg_warm : {'; \
	  for o in $(filter-out $(1),$(SO_NAMES)); do echo "    */$$o.o(.text .text.unlikely)"; done; \
	  echo '  }'; \
	  echo '  . = ALIGN(CONSTANT (MAXPAGESIZE)) + CONSTANT (MAXPAGESIZE);'; \
	  echo '  .cg_fork : { *(.text.cg_fork) }'; \
	  echo '} INSERT BEFORE .text;'; \
	  echo 'SECTIONS { . = ALIGN(CONSTANT (MAXPAGESIZE)) + CONSTANT (MAXPAGESIZE); } INSERT BEFORE .eh_frame_hdr;'; \
	}
# The version script: src/chunkguard.map through the C preprocessor, which
# expands the C++ forms' list (src/base/cxxops.def) into their names.
$(BUILD)/chunkguard.map: src/chunkguard.map src/base/cxxops.def
	@mkdir -p $(BUILD)
	$(CC) -E -P -x c -I src $< -o $@

$(BUILD)/layout.ld: Makefile
	@mkdir -p $(dir $@)
	$(call cg_layout,$(COLD_OBJS) $(COLD_EXTRA)) > $@
# The cold objects are also linked last, which keeps the order of the
# constructors and destructors: the core's first.
# atforkreg.o (pthread_atfork) is the archive's alone: the shared library
# has forkreg.o's __register_atfork (src/entry/atforkreg.c).
SO_OBJS := $(filter-out $(BUILD)/obj/atforkreg.o,$(OBJS))
SO_NAMES := $(patsubst $(BUILD)/obj/%.o,%,$(SO_OBJS))
LINK_OBJS := $(filter-out $(COLD_OBJS:%=$(BUILD)/obj/%.o),$(SO_OBJS)) $(COLD_OBJS:%=$(BUILD)/obj/%.o)
# The library's SONAME is libchunkguard.so.$(CG_ABI) (pkg/install.mk and
# docs/design.md, "Versions and the SONAME").  build/libchunkguard.so stays
# the real file, the one LD_PRELOAD names; build/$(CG_SONAME) points to it
# for the programs linked with -lchunkguard, whose DT_NEEDED is the SONAME.
# Having a soname also lets valgrind tell the preloaded library from the
# program: --soname-synonyms=somalloc=NONE (README, "Under valgrind") makes
# it replace the malloc of the executable and of libraries without one only.
# libiberty's C++ demangler (src/report/demangle.c), from Debian's
# libiberty-dev (its libiberty.a is PIC): cp-demangle.o with every symbol
# made local but its callback entry point, renamed cg_iberty_demangle_cb,
# so that it never clashes with a program's own libiberty.  Not compiled
# here, so the same object goes into every build of the core.
IBERTY_A := /usr/lib/x86_64-linux-gnu/libiberty.a
IBERTY_O := $(BUILD)/iberty.o
$(IBERTY_A):
	@tools/deps.sh lib
$(IBERTY_O): $(IBERTY_A) Makefile
	@mkdir -p $(BUILD)/iberty
	cd $(BUILD)/iberty && ar x $(IBERTY_A) cp-demangle.o
	objcopy -w --redefine-sym cplus_demangle_v3_callback=cg_iberty_demangle_cb \
	    --keep-global-symbol=cg_iberty_demangle_cb $(BUILD)/iberty/cp-demangle.o $@

# The link map ($(BUILD)/libchunkguard.so.map) says where each object's
# code went: tools/check-cold.py reads it.
# Relative relocations packed (DT_RELR, glibc 2.36 and binutils 2.38 on):
# the 680 RELATIVE entries of .rela.dyn (16 kB, the pointers of the option,
# check and mode tables) become a few hundred bytes, and the first segment,
# which the loader reads whole, shrinks from 6 pages to 2 (docs/performance.md,
# perf11).  Only where the linker takes the option and the libc the
# library will be built against knows DT_RELR (its GLIBC_ABI_DT_RELR version).
RELR_LDFLAGS := $(shell $(CC) -print-file-name=libc.so.6 >/dev/null 2>&1 && \
	  readelf -V $$($(CC) -print-file-name=libc.so.6) 2>/dev/null | grep -q GLIBC_ABI_DT_RELR && \
	  echo 'int x;' | $(CC) -x c -shared -fPIC -Wl,-z,pack-relative-relocs -o /dev/null - \
	  >/dev/null 2>&1 && echo -Wl,-z,pack-relative-relocs)
cg_link = $(CC) -shared -o $(1) $(LINK_OBJS) $(IBERTY_O) -Wl,--version-script=$(BUILD)/chunkguard.map \
	    -Wl,-soname,$(CG_SONAME) -Wl,-Map=$(1).map \
	    $(2) -Wl,-z,defs -Wl,-z,now -Wl,-z,relro $(RELR_LDFLAGS) -pthread
$(BUILD)/libchunkguard.so: $(OBJS) $(IBERTY_O) $(BUILD)/chunkguard.map $(BUILD)/layout.ld
	$(call cg_link,$@,$(LAYOUT_LDFLAGS))
	ln -sfn libchunkguard.so $(BUILD)/$(CG_SONAME)

# Is every object that must be cold in the cold segment?  cold-check: of
# the library; cold-check-seeded: of the same objects linked with
# COLD_SEEDED (an object of src/debug/) left out of the cold list, which
# the check must name (exit 1).
COLD_SEEDED ?= guard
COLD_CHECK = python3 tools/check-cold.py --src-dir src/debug --exempt '$(COLD_EXEMPT)' \
	    --also '$(COLD_EXTRA)'
.PHONY: cold-check cold-check-seeded
cold-check: $(BUILD)/libchunkguard.so
	$(COLD_CHECK) --map $<.map
cold-check-seeded: $(OBJS) $(IBERTY_O) $(BUILD)/chunkguard.map
	@mkdir -p $(BUILD)/coldseed
	$(call cg_layout,$(filter-out $(COLD_SEEDED),$(COLD_OBJS) $(COLD_EXTRA))) > $(BUILD)/coldseed/layout.ld
	$(call cg_link,$(BUILD)/coldseed/libchunkguard.so,-Wl$(comma)-T$(comma)$(BUILD)/coldseed/layout.ld)
	$(COLD_CHECK) --map $(BUILD)/coldseed/libchunkguard.so.map

# forkreg.o (fork, __register_atfork) is the shared library's alone: a
# static program's libc.a has its own __register_atfork (src/entry/forkreg.c);
# threadreg.o (pthread_create) likewise (src/entry/threadreg.c).
$(BUILD)/libchunkguard.a: $(OBJS) $(IBERTY_O)
	rm -f $@ && ar rcs $@ $(filter-out $(BUILD)/obj/forkreg.o $(BUILD)/obj/threadreg.o,$(OBJS)) $(IBERTY_O)

$(BUILD)/libchunkguard-cg.a: $(CG_OBJS) $(IBERTY_O)
	rm -f $@ && ar rcs $@ $(CG_OBJS) $(IBERTY_O)

# Debian packages the tests and the demo need; installed only when missing.
deps:
	@tools/deps.sh check
deps-demo:
	@tools/deps.sh demo

clean:
	rm -rf $(BUILD)

-include tests/tests.mk
-include tests/heapcheck/heapcheck.mk
-include examples/examples.mk
-include bench/bench.mk
-include verify/verify.mk
-include tests/locks/locks.mk
-include fuzz/fuzz.mk
-include pkg/install.mk

check: deps lib
	@tests/run-all.sh

# docs/options.md is generated from src/options.def (make check verifies it).
docs/options.md: tools/gen-options-doc.c src/base/options.def
	@mkdir -p $(BUILD)
	$(CC) -O0 -Wall -o $(BUILD)/gen-options-doc tools/gen-options-doc.c
	$(BUILD)/gen-options-doc > $@

# The catalogue of checks (src/report/checks.def) gives the case tests
# their expectation table and docs/reports.md its tables of checks
# (tools/gen-checks.c; make check verifies the doc).
CHECKS_DEFS := src/report/checks.def src/report/errors.def
$(BUILD)/gen-checks: tools/gen-checks.c $(CHECKS_DEFS)
	@mkdir -p $(BUILD)
	$(CC) -O0 -Wall -Wextra -o $@ tools/gen-checks.c
$(BUILD)/checks.tsv: $(BUILD)/gen-checks
	$(BUILD)/gen-checks table > $@.tmp && mv $@.tmp $@
# Always rewritten: the file is both its input and its output.
.PHONY: docs/reports.md
docs/reports.md: $(BUILD)/gen-checks
	$(BUILD)/gen-checks doc < $@ > $(BUILD)/reports.md.tmp && mv $(BUILD)/reports.md.tmp $@
