# examples.mk — the examples, `make demo`, and the fast-path proof's programs.
# Included by the top-level Makefile (BUILD, CC come from there).
#
#   make demo             build the examples and run tools/demo.sh
#   make fastpath-driver  build/fastpath/driver (tools/check-fastpath.sh)
#   make fastpath-toys    build/fastpath/toy-{ok,atomic,futex,never}.so: stand-in
#                         libraries the fast-path suite uses to prove the
#                         checker can fail; never shipped
#   make fastpath-coldpages  build/fastpath/coldpages: does fast mode map a
#                         page of the library's cold segments? (and
#                         coldpages-exit.so: the same, after the exit path)

EX_CFLAGS := -O0 -g -Wall -Wextra
# The examples contain their bug on purpose: keep gcc from "fixing" or
# warning about it (a double free it can see, free of a non-heap object).
EX_NOWARN := -Wno-free-nonheap-object -Wno-use-after-free -Wno-stringop-overflow -fno-builtin-malloc -fno-builtin-free
EX_PROGS  := $(BUILD)/examples/double_free $(BUILD)/examples/invalid_free \
             $(BUILD)/examples/heap_overflow

.PHONY: demo demo-examples fastpath-driver fastpath-toys fastpath-coldpages fastpath-binfull

$(BUILD)/examples/%: examples/%.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) $(EX_CFLAGS) $(EX_NOWARN) -o $@ $<

demo-examples: $(EX_PROGS)

demo: deps-demo lib demo-examples
	@tools/demo.sh $(BUILD)

FP_DIR := $(BUILD)/fastpath

$(FP_DIR)/driver: tools/fastpath/driver.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -o $@ $< -ldl -pthread

$(FP_DIR)/toy-ok.so: tools/fastpath/toy.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fPIC -shared -o $@ $<

$(FP_DIR)/toy-atomic.so: tools/fastpath/toy.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fPIC -shared -DTOY_ALWAYS_ATOMIC -o $@ $<

$(FP_DIR)/toy-futex.so: tools/fastpath/toy.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fPIC -shared -DTOY_FUTEX -o $@ $<

$(FP_DIR)/toy-never.so: tools/fastpath/toy.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fPIC -shared -DTOY_NEVER_ATOMIC -o $@ $<

$(FP_DIR)/coldpages: tools/fastpath/coldpages.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -fno-builtin -o $@ $< -ldl

fastpath-driver: $(FP_DIR)/driver
$(FP_DIR)/binfull: tools/fastpath/binfull.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -fno-builtin -o $@ $<

fastpath-binfull: $(FP_DIR)/binfull
$(FP_DIR)/coldpages-exit.so: tools/fastpath/coldpages.c examples/examples.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -fno-builtin -fPIC -shared -DCOLDPAGES_AT_EXIT -o $@ $< -ldl

fastpath-coldpages: $(FP_DIR)/coldpages $(FP_DIR)/coldpages-exit.so
fastpath-toys: $(FP_DIR)/toy-ok.so $(FP_DIR)/toy-atomic.so $(FP_DIR)/toy-futex.so \
               $(FP_DIR)/toy-never.so
