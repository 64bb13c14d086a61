# tests/locks/locks.mk — the lock tests (issue 4, points 1-5), run by
# tests/suites/52-locks.sh.  Targets prefixed locks-.
#
#   locks-bins     $(BUILD)/locks/locktest and the library builds it runs on:
#     $(BUILD)/locks/test/libchunkguard.so     test build: hooks and lock
#                                              assertions on
#     $(BUILD)/locks/redecide/libchunkguard.so mutant: the unlock asks
#                                              "multi-threaded?" again
#     $(BUILD)/locks/nomark/libchunkguard.so   mutant: no "inside" mark
# Each library is its own make run (its own BUILD and CG_DEFS), as the
# checks-off variants are, and with CG_REUSE=$(BUILD) as theirs: an object
# whose file the switches do not reach (the same preprocessed text) is a
# copy of the default build's, which is made first for that.

LOCKS_DIR  := $(BUILD)/locks
LOCKS_TEST := -DCG_TEST_HOOKS=1 -DCG_LOCK_ASSERTS=1
LOCKS_VARIANTS := test redecide nomark
LOCKS_DEFS_test     := $(LOCKS_TEST)
LOCKS_DEFS_redecide := $(LOCKS_TEST) -DCG_MUTANT_UNLOCK_REDECIDES=1
LOCKS_DEFS_nomark   := $(LOCKS_TEST) -DCG_REENTRY_MARK=0

.PHONY: locks-bins
locks-bins: $(LOCKS_DIR)/locktest $(addprefix locks-lib-,$(LOCKS_VARIANTS))

$(LOCKS_DIR)/locktest: tests/locks/locktest.c include/chunkguard.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -fno-builtin -fno-omit-frame-pointer -Wall -Wextra -Iinclude \
	    -o $@ $< -pthread -ldl

# One rule per variant (a pattern rule cannot make a phony target); the
# sub-make decides whether the variant is up to date, so it always runs.
define LOCKS_LIB_RULE
.PHONY: locks-lib-$(1)
locks-lib-$(1): $$(BUILD)/libchunkguard.so
	@$$(MAKE) --no-print-directory -s BUILD=$$(LOCKS_DIR)/$(1) CG_DEFS="$$(LOCKS_DEFS_$(1))" \
	    CG_REUSE=$$(BUILD) $$(LOCKS_DIR)/$(1)/libchunkguard.so
endef
$(foreach v,$(LOCKS_VARIANTS),$(eval $(call LOCKS_LIB_RULE,$(v))))
