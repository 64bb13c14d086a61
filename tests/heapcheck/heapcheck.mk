# ---- heap verifier tests (tests/heapcheck, tests/suites/57-heapcheck.sh).
# ---- Targets and variables prefixed hc-/HC_.
#
#   hc-bins   $(BUILD)/heapcheck/hc_clean    clean workloads, on libchunkguard.so
#             $(BUILD)/heapcheck/hc_corrupt  one case per kind of corruption, on
#                 the cg_-named core with src/heapcheck.c built test-only
#                 (CG_HEAPCHECK_MUTABLE: each kind's check can be turned off)
#             $(BUILD)/heapcheck/hc_interval a corruption verify_interval finds

HC_OUT    := $(BUILD)/heapcheck
HC_CFLAGS := -std=gnu11 -O1 -g -fno-builtin -Wall -Wextra -Iinclude

.PHONY: hc-bins
hc-bins: $(HC_OUT)/hc_clean $(HC_OUT)/hc_corrupt $(HC_OUT)/hc_interval

$(HC_OUT)/heapcheck-mutable.o: $(call cg_src,heapcheck) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -DCHUNKGUARD_PREFIXED -DCG_HEAPCHECK_MUTABLE=1 -c $< -o $@

# The test-only object comes before the archive, so the archive's is not used.
$(HC_OUT)/hc_corrupt: tests/heapcheck/hc_corrupt.c $(HC_OUT)/heapcheck-mutable.o \
                      $(BUILD)/libchunkguard-cg.a
	$(CC) $(HC_CFLAGS) $(CG_INC) -o $@ $< $(HC_OUT)/heapcheck-mutable.o \
	    $(BUILD)/libchunkguard-cg.a -pthread -ldl

$(HC_OUT)/%: tests/heapcheck/%.c include/chunkguard.h $(BUILD)/libchunkguard.so
	@mkdir -p $(dir $@)
	$(CC) $(HC_CFLAGS) -o $@ $< -L$(BUILD) -Wl,--no-as-needed -lchunkguard -Wl,--as-needed \
	    -Wl,-rpath,$(abspath $(BUILD)) -pthread
