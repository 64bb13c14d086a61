# pkg/install.mk — make install / make uninstall (included by the Makefile).
#
#   make install   [PREFIX=/usr/local] [DESTDIR=] [libdir=... mandir=... ...]
#   make uninstall (the same variables): removes exactly what install put
#
# Directories follow the GNU coding standards ("Variables for Installation
# Directories"): prefix (PREFIX is accepted too, as most projects spell it),
# exec_prefix, bindir, libdir, includedir, datarootdir, mandir, man1dir,
# man3dir, and pkgconfigdir = $(libdir)/pkgconfig.  DESTDIR is prepended to
# every installed path and never written into a file, so a package build
# (dpkg-buildpackage, rpmbuild) can stage into a tree of its own.
#
# What is installed:
#   $(libdir)/libchunkguard.so.$(CG_VERSION)  the shared library (real name)
#   $(libdir)/$(CG_SONAME)                    -> the real name (what ldconfig makes)
#   $(libdir)/libchunkguard.so                -> $(CG_SONAME) (for -lchunkguard)
#   $(libdir)/libchunkguard.a                 the static library
#   $(includedir)/chunkguard.h
#   $(pkgconfigdir)/chunkguard.pc             from pkg/chunkguard.pc.in
#   $(bindir)/chunkguard                      tools/chunkguard, when it exists
#   $(man1dir)/chunkguard.1, $(man3dir)/chunkguard.3
# libchunkguard-cg.a (the cg_-named core) is a test build and stays out.

PREFIX       ?= /usr/local
prefix       ?= $(PREFIX)
exec_prefix  ?= $(prefix)
bindir       ?= $(exec_prefix)/bin
libdir       ?= $(exec_prefix)/lib
includedir   ?= $(prefix)/include
datarootdir  ?= $(prefix)/share
mandir       ?= $(datarootdir)/man
man1dir      ?= $(mandir)/man1
man3dir      ?= $(mandir)/man3
pkgconfigdir ?= $(libdir)/pkgconfig
DESTDIR      ?=
INSTALL         ?= install
INSTALL_PROGRAM ?= $(INSTALL)
INSTALL_DATA    ?= $(INSTALL) -m 644
# Run after installing or removing the library straight into the system
# (no DESTDIR), so the loader's cache knows libchunkguard.so.0 at once;
# a staged install leaves that to the package's own scripts.
# LDCONFIG=: skips it.
LDCONFIG        ?= ldconfig
cg_ldconfig = $(if $(DESTDIR),,$(if $(shell command -v $(firstword $(LDCONFIG)) 2>/dev/null),$(LDCONFIG)))

CG_REALNAME := libchunkguard.so.$(CG_VERSION)
# The command is another branch's work (issue 14, point 2): installed when
# the file is there, at the time make runs.
CG_COMMAND  := $(wildcard tools/chunkguard)

# The manual pages.  chunkguard(1)'s OPTIONS section is generated from
# src/base/options.def (tools/gen-man-options.c), so it cannot drift from
# the parser; the rest of both pages is written in man/.
$(BUILD)/gen-man-options: tools/gen-man-options.c src/base/options.def
	@mkdir -p $(dir $@)
	$(CC) -O0 -Wall -Wextra -o $@ tools/gen-man-options.c
$(BUILD)/man/chunkguard.1: man/chunkguard.1.in $(BUILD)/gen-man-options Makefile
	@mkdir -p $(dir $@)
	$(BUILD)/gen-man-options < man/chunkguard.1.in | sed -e 's/@VERSION@/$(CG_VERSION)/g' -e 's/@SONAME@/$(CG_SONAME)/g' > $@.tmp
	mv $@.tmp $@
$(BUILD)/man/chunkguard.3: man/chunkguard.3.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's/@VERSION@/$(CG_VERSION)/g' -e 's/@SONAME@/$(CG_SONAME)/g' man/chunkguard.3.in > $@.tmp
	mv $@.tmp $@
# A directory with a space goes into chunkguard.pc as "\ ": pkg-config
# reads a variable's value as shell words and prints the flags escaped.
cg_empty :=
cg_space := $(cg_empty) $(cg_empty)
cg_pc_dir = $(subst $(cg_space),\\ ,$(1))
$(BUILD)/chunkguard.pc: pkg/chunkguard.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@prefix@|$(call cg_pc_dir,$(prefix))|g' -e 's|@exec_prefix@|$(call cg_pc_dir,$(exec_prefix))|g' \
	    -e 's|@libdir@|$(call cg_pc_dir,$(libdir))|g' -e 's|@includedir@|$(call cg_pc_dir,$(includedir))|g' \
	    -e 's|@VERSION@|$(CG_VERSION)|g' pkg/chunkguard.pc.in > $@.tmp
	mv $@.tmp $@

.PHONY: man install uninstall $(BUILD)/chunkguard.pc
man: $(BUILD)/man/chunkguard.1 $(BUILD)/man/chunkguard.3

# chunkguard.pc carries the directories of this very make run, so it is
# made again each time (it is phony): PREFIX=/opt/x then PREFIX=/usr must
# not install a stale file.
# Every path is quoted: PREFIX or DESTDIR may hold a space.
install: lib man $(BUILD)/chunkguard.pc
	$(INSTALL) -d "$(DESTDIR)$(libdir)" "$(DESTDIR)$(includedir)" "$(DESTDIR)$(pkgconfigdir)" \
	    "$(DESTDIR)$(man1dir)" "$(DESTDIR)$(man3dir)"
	$(INSTALL_PROGRAM) -m 755 "$(BUILD)/libchunkguard.so" "$(DESTDIR)$(libdir)/$(CG_REALNAME)"
	ln -sfn "$(CG_REALNAME)" "$(DESTDIR)$(libdir)/$(CG_SONAME)"
	ln -sfn "$(CG_SONAME)" "$(DESTDIR)$(libdir)/libchunkguard.so"
	$(INSTALL_DATA) "$(BUILD)/libchunkguard.a" "$(DESTDIR)$(libdir)/libchunkguard.a"
	$(INSTALL_DATA) include/chunkguard.h "$(DESTDIR)$(includedir)/chunkguard.h"
	$(INSTALL_DATA) "$(BUILD)/chunkguard.pc" "$(DESTDIR)$(pkgconfigdir)/chunkguard.pc"
	$(INSTALL_DATA) "$(BUILD)/man/chunkguard.1" "$(DESTDIR)$(man1dir)/chunkguard.1"
	$(INSTALL_DATA) "$(BUILD)/man/chunkguard.3" "$(DESTDIR)$(man3dir)/chunkguard.3"
ifneq ($(CG_COMMAND),)
	$(INSTALL) -d "$(DESTDIR)$(bindir)"
	$(INSTALL_PROGRAM) -m 755 "$(CG_COMMAND)" "$(DESTDIR)$(bindir)/chunkguard"
else
	@echo "install: tools/chunkguard is not in this tree yet; the chunkguard command is not installed"
endif
	$(if $(cg_ldconfig),$(cg_ldconfig))

# Every file install may have put, and nothing else; then the directories
# install -d named (and the man and share directories above them), each
# only when empty: one holding another package's file stays.  The command
# is removed whether or not this tree has it, since an earlier install may
# have put it there.
uninstall:
	rm -f "$(DESTDIR)$(libdir)/$(CG_REALNAME)" "$(DESTDIR)$(libdir)/$(CG_SONAME)" \
	    "$(DESTDIR)$(libdir)/libchunkguard.so" "$(DESTDIR)$(libdir)/libchunkguard.a" \
	    "$(DESTDIR)$(includedir)/chunkguard.h" "$(DESTDIR)$(pkgconfigdir)/chunkguard.pc" \
	    "$(DESTDIR)$(man1dir)/chunkguard.1" "$(DESTDIR)$(man3dir)/chunkguard.3" \
	    "$(DESTDIR)$(bindir)/chunkguard"
	for d in "$(DESTDIR)$(pkgconfigdir)" "$(DESTDIR)$(man1dir)" "$(DESTDIR)$(man3dir)" \
	         "$(DESTDIR)$(mandir)" "$(DESTDIR)$(datarootdir)" "$(DESTDIR)$(includedir)" \
	         "$(DESTDIR)$(bindir)" "$(DESTDIR)$(libdir)"; do \
	    if [ -d "$$d" ]; then rmdir --ignore-fail-on-non-empty "$$d"; fi; \
	done
	$(if $(cg_ldconfig),$(cg_ldconfig))
