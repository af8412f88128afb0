# tests/hardening.mk: bad input, sanitizers and fuzzing. Included by the top-level Makefile.
#
#   make test-hardening   every bad-input and edge case against the built programs; fails if one
#                         misbehaves or if tests/hardening/README.md's table no longer says what happens
#   make hardening-table  the same cases, then tests/hardening/README.md's table rewritten from what happened
#   make sanitize         CPU steps, common/ and the tests under ASan + UBSan; valgrind on a small run
#   make test-fuzz        the regression inputs, then FUZZ_SECONDS of libFuzzer per target (clang)
#   make fuzz             libFuzzer on the snapshot reader and the command line, FUZZ_TIME s each

# Steps whose folder exists (steps.list may name steps still being written).
HARDEN_CPU_BINS := $(foreach s,$(CPU_IDS),$(if $(wildcard $(call folder_of,$(s))),$(call BIN,$(s))))
HARDEN_GPU_BINS := $(if $(HAVE_NVCC),$(foreach s,$(GPU_IDS),$(if $(wildcard $(call folder_of,$(s))),$(call BIN,$(s)))))
HARDEN_CRAFT := $(BUILD)/tools/hardening-craft

$(HARDEN_CRAFT): tests/hardening/craft.c $(LIBNBODY) $(BUILD)/gen/version.h | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) $$(test -s $(BUILD)/gen/hdf5.libs && echo -DNB_HAVE_HDF5 $$(pkg-config --cflags hdf5)) \
	  $(LDFLAGS) -o $@ $< $(LIBNBODY) $(HDF5_LIBS) $(LDLIBS)

.PHONY: hardening-tools test-hardening hardening-table sanitize test-sanitize fuzz test-fuzz
hardening-tools: $(HARDEN_CRAFT)

HARDEN_GRADER := $(if $(wildcard grading/grade.c),$(GRADER))

# python3 runs one case (S13, report/explore/sass-model.py): installed as Check is where it can be (root
# and apt-get); where not, that case is SKIP with the reason (tests/hardening/run.sh), not a failure.
test-hardening: $(HARDEN_CPU_BINS) $(HARDEN_GPU_BINS) $(HARDEN_CRAFT) $(HARDEN_GRADER) $(NBCONVERT)  ## every bad input and edge case; fails on a misbehaving one or a stale table (tests/hardening/README.md)
	@bash common/deps.sh python3 2> /dev/null || echo "test-hardening: python3 missing and not installable here: case S13 SKIPs (bash common/deps.sh python3 says how)"
	@bash tests/hardening/run.sh --bin $(BUILD)/bin --craft $(HARDEN_CRAFT) $(BUILD)/hardening; rc=$$?; \
	  bash tests/hardening/table.sh --check tests/hardening/README.md $(BUILD)/hardening/table.md || rc=1; exit $$rc

hardening-table: $(HARDEN_CPU_BINS) $(HARDEN_GPU_BINS) $(HARDEN_CRAFT) $(HARDEN_GRADER) $(NBCONVERT)  ## run the bad-input cases, rewrite tests/hardening/README.md's table from what happened
	@bash tests/hardening/run.sh --bin $(BUILD)/bin --craft $(HARDEN_CRAFT) $(BUILD)/hardening; rc=$$?; \
	  bash tests/hardening/table.sh --write tests/hardening/README.md $(BUILD)/hardening/table.md && exit $$rc

# ---- sanitizers ---------------------------------------------------------------------------------
SANITIZE_BUILD ?= build/sanitize
SANITIZE_CFLAGS ?= -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SANITIZE_LDFLAGS ?= -fsanitize=address,undefined

sanitize:                                            ## CPU steps, common/ and tests under ASan+UBSan; valgrind on a small run
	@bash tests/hardening/sanitize.sh $(SANITIZE_BUILD) "$(SANITIZE_CFLAGS)" "$(SANITIZE_LDFLAGS)"

# ---- fuzzing (libFuzzer: clang) -----------------------------------------------------------------
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
FUZZ_TIME ?= 600
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_TARGETS := snapshot cli tipsy
FUZZ_FLAGS := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wno-unknown-pragmas \
              -Icommon -I$(BUILD)/gen
FUZZ_LIB_SRC := $(addprefix common/,$(COMMON_SRC))

$(FUZZ_DIR)/fuzz-%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_SRC) $(wildcard common/*.h) $(BUILD)/gen/version.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_LIB_SRC) -lz -lm -lpthread

FUZZ_MAKE = $(MAKE) --no-print-directory BUILD=$(BUILD) FUZZ_CC=$(FUZZ_CC)

test-fuzz:                                           ## the fuzzers' regression inputs, then FUZZ_SECONDS of fuzzing per target
	@FUZZ_CC='$(FUZZ_CC)' bash tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) "$(FUZZ_MAKE)" $(FUZZ_TARGETS)

fuzz:                                                ## fuzz the snapshot and tipsy readers and the command line, FUZZ_TIME=600 s each
	@FUZZ_CC='$(FUZZ_CC)' bash tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_TIME) "$(FUZZ_MAKE)" $(FUZZ_TARGETS)
