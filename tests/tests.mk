# tests/tests.mk: the Check suites (make test, make check, make test-gpu). Included by the Makefile.
#
#   unit suites   tests/check_<name>.c, one program each, linked with libnbody.a
#   step suites   tests/check_step.c, compiled once per step of steps.list and linked with that step's
#                 nbody.o and its platform (host.o for lang c, device.o for lang cu, linked by nvcc)
# tests/run.sh runs the programs one after another and prints one line per suite; its exit status
# is the verdict. GPU suites report SKIP where there is no GPU, and are not built without nvcc.
# TEST_STEPS="00 03" restricts the step suites; logs and TAP files go to $(BUILD)/tests/log.

TEST_UNITS := rng init snapshot cli validate blocks physics agreement cause child
TEST_STEPS ?= $(STEP_IDS)
TEST_DIR := $(BUILD)/tests
TEST_OBJ := $(BUILD)/obj/tests

# Check: unpacked Debian packages under DEPS_ROOT are linked statically (GPU machines have no apt);
# otherwise pkg-config, read when a recipe runs (after $(BUILD)/.deps-check may have installed it).
ifneq ($(DEPS_ROOT),)
CHECK_CFLAGS := $(if $(findstring -isystem $(DEPS_ROOT)/usr/include,$(LAB_CFLAGS)),,-isystem $(DEPS_ROOT)/usr/include)
CHECK_LIBS := $(DEPS_ROOT)/usr/lib/x86_64-linux-gnu/libcheck.a $(DEPS_ROOT)/usr/lib/x86_64-linux-gnu/libsubunit.a -lrt -lm -lpthread
else
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS = $(shell pkg-config --libs check)
endif
# nvcc does not take -pthread.
CHECK_LIBS_NVCC = $(patsubst -pthread,-lpthread,$(CHECK_LIBS))
TEST_CFLAGS = $(LAB_CFLAGS) -Itests $(CFLAGS) $(CHECK_CFLAGS)

# Steps whose source exists; a registered step without one is reported as a failure, not skipped.
test_source = $(call folder_of,$(1))/nbody.$(call lang_of,$(1))
TEST_PRESENT := $(foreach s,$(TEST_STEPS),$(if $(wildcard $(call test_source,$(s))),$(s)))
TEST_ABSENT := $(filter-out $(TEST_PRESENT),$(TEST_STEPS))
# Steps not written yet (a handout's stubs: grading/todo.awk) are reported as TODO, not run; a TODO is
# not a failure. Their sources' TODO lines are read once, here.
$(foreach s,$(STEP_IDS),$(eval TODO_MSG_$(s) := $(shell awk -f grading/todo.awk $(call test_source,$(s)) 2>/dev/null)))
STEP_TODO := $(foreach s,$(STEP_IDS),$(if $(TODO_MSG_$(s)),$(s)))
TEST_TODO := $(filter $(STEP_TODO),$(TEST_PRESENT))
TEST_WRITTEN := $(filter-out $(TEST_TODO),$(TEST_PRESENT))
TEST_CPU := $(filter $(CPU_IDS),$(TEST_WRITTEN))
TEST_GPU := $(filter $(GPU_IDS),$(TEST_WRITTEN))
test_prog = $(TEST_DIR)/bin/check_$(call folder_of,$(1))

TEST_UNIT_PROGS := $(TEST_UNITS:%=$(TEST_DIR)/bin/check_%)
TEST_CPU_PROGS := $(foreach s,$(TEST_CPU),$(call test_prog,$(s)))
TEST_GPU_PROGS := $(if $(HAVE_NVCC),$(foreach s,$(TEST_GPU),$(call test_prog,$(s))))

# What run.sh gets for a step, in registry order: its program, or why it is not run (a missing source
# is a failure; a GPU step without nvcc a skip).
test_arg = $(if $(filter $(1),$(TEST_ABSENT)),--fail '$(call folder_of,$(1))=source $(call test_source,$(1)) is missing (listed in steps.list)',$(if $(filter $(1),$(TEST_TODO)),--todo '$(call folder_of,$(1))=$(subst ',,$(TODO_MSG_$(1)))',$(if $(or $(filter $(1),$(CPU_IDS)),$(HAVE_NVCC)),$(call test_prog,$(1)),--skip '$(call folder_of,$(1))=nvcc not found: GPU suites not built')))
TEST_STEP_ARGS := $(foreach s,$(TEST_STEPS),$(call test_arg,$(s)))
TEST_GPU_ARGS := $(foreach s,$(filter $(GPU_IDS),$(TEST_STEPS)),$(call test_arg,$(s)))

# The black-box suites run the CPU step programs as a user would: the written ones' paths, in registry
# order (NB_TEST_TODO names the others: the suites skip what needs a step when none is written).
TEST_CPU_WRITTEN_BINS := $(foreach s,$(filter-out $(STEP_TODO),$(CPU_IDS)),$(call BIN,$(s)))
TEST_ENV = NB_TEST_TMP='$(TEST_DIR)/tmp' NB_TEST_STEP_BINS='$(TEST_CPU_WRITTEN_BINS)' \
  NB_TEST_TODO='$(foreach s,$(filter $(CPU_IDS),$(STEP_TODO)),$(call folder_of,$(s)))'

$(TEST_OBJ)/%.o: tests/%.c $(BUILD)/gen/version.h | $(BUILD)/.deps-check $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

$(TEST_DIR)/bin/check_%: $(TEST_OBJ)/check_%.o $(TEST_OBJ)/testlib.o $(LIBNBODY)
	@mkdir -p $(@D)
	$(CC) -fopenmp $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
# The grader's likely cause (grading/cause.c), with the grader's parts it stands on (before the library).
$(TEST_DIR)/bin/check_cause: $(TEST_OBJ)/check_cause.o $(TEST_OBJ)/testlib.o $(BUILD)/obj/grading/cause.o \
                             $(BUILD)/obj/grading/rows.o $(BUILD)/obj/grading/text.o $(LIBNBODY)
	@mkdir -p $(@D)
	$(CC) -fopenmp $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# $(1) id, $(2) folder, $(3) lang
define TEST_STEP_RULES
$(TEST_OBJ)/$(2)/check_step.o: tests/check_step.c $(BUILD)/gen/version.h | $(BUILD)/.deps-check $(BUILD)/.deps-zlib
	@mkdir -p $$(@D)
	$$(CC) $$(TEST_CFLAGS) -MMD -MP -DNB_STEP_ID='"$(1)"' -DNB_STEP_NAME='"$(2)"' \
	  -DNB_STEP_FEATURES='"$(or $(call features_of,$(1)),-)"' -c $$< -o $$@

ifeq ($(3),c)
$(TEST_DIR)/bin/check_$(2): $(TEST_OBJ)/$(2)/check_step.o $(TEST_OBJ)/testlib.o $(BUILD)/obj/$(2)/nbody.o \
                            $(BUILD)/obj/common/host.o $(LIBNBODY)
	@mkdir -p $$(@D)
	$$(CC) -fopenmp $$(LDFLAGS) -o $$@ $$^ $$(CHECK_LIBS) $$(LDLIBS)
else
$(TEST_DIR)/bin/check_$(2): $(TEST_OBJ)/$(2)/check_step.o $(TEST_OBJ)/testlib.o $(BUILD)/obj/$(2)/nbody.o \
                            $(BUILD)/obj/common/device.o $(if $(call launch_of,$(1)),$(BUILD)/obj/mpi/exchange.o) $(LIBNBODY)
	@mkdir -p $$(@D)
	$$(NVCC) -arch=sm_$$(CUDA_ARCH) -o $$@ $$^ -Xcompiler -fopenmp $$(NVCC_LDFLAGS) $$(CHECK_LIBS_NVCC) $(if $(call launch_of,$(1)),$$(call mpi_for_nvcc,$$(MPI_LIBS))) $$(LDLIBS)
endif
endef
$(foreach s,$(TEST_PRESENT),$(eval $(call TEST_STEP_RULES,$(s),$(call folder_of,$(s)),$(call lang_of,$(s)))))

.PHONY: test check test-gpu test-build
test-build: $(TEST_UNIT_PROGS) $(TEST_CPU_PROGS) $(TEST_GPU_PROGS) $(CPU_BINS)  ## build every test program

# A step registered with the feature snapshots must get the whole loop from the judge, not chunks, and
# the views it emits must reach their files through the judge. It takes --theta, --levels and --eta too
# (the features theta and block_steps): the judge, not the step, writes them in the results CSV's own
# columns (common/results.h), and the step's config stays its own.
FEATURE_PROBE := $(TEST_DIR)/bin/feature_probe
SUMMARY_99 := a step that writes its own snapshots
FEATURES_99 := snapshots,theta,block_steps
$(TEST_OBJ)/feature_probe/judge.o: common/judge.c $(BUILD)/gen/version.h tests/tests.mk | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(call compile_judge,99,feature_probe,test)
$(TEST_OBJ)/feature_probe/worker.o: common/worker.c | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(call compile_worker,99,feature_probe)

$(FEATURE_PROBE)-worker: $(TEST_OBJ)/feature_probe.o $(TEST_OBJ)/feature_probe/worker.o $(BUILD)/obj/common/host.o $(LIBNBODY)
	@mkdir -p $(@D)
	$(CC) -fopenmp $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(FEATURE_PROBE): $(TEST_OBJ)/feature_probe/judge.o $(LIBNBODY) $(FEATURE_PROBE)-worker
	$(link_judge)

.PHONY: test-features
test-features: $(FEATURE_PROBE)  ## a step registered with the feature snapshots gets the whole loop, and its views are written
	@rm -rf $(TEST_DIR)/feature-snaps && mkdir -p $(TEST_DIR)/feature-snaps
	@if $(FEATURE_PROBE) -q -n 8 --steps 4 --repeat 1 --validate off --snapshot-every 2 \
	    --snapshot-dir $(TEST_DIR)/feature-snaps > $(TEST_DIR)/feature-probe.log 2>&1 && \
	  [ "$$(cd $(TEST_DIR)/feature-snaps && ls | tr '\n' ' ')" = "snap-0000000002.nbs snap-0000000004.nbs " ]; then \
	  echo "PASS features: a step with the feature snapshots gets the whole loop, and the judge writes the views it emits"; \
	else echo "FAIL features: $$(tail -n 1 $(TEST_DIR)/feature-probe.log) (snapshots: $$(ls $(TEST_DIR)/feature-snaps | tr '\n' ' '))"; exit 1; fi
	@rm -f $(TEST_DIR)/feature-probe.csv
	@if $(FEATURE_PROBE) -q -n 8 --steps 1 --repeat 1 --validate off --theta 0.3 --levels 3 --eta 0.1 \
	    --csv $(TEST_DIR)/feature-probe.csv >> $(TEST_DIR)/feature-probe.log 2>&1 && \
	  got=$$(awk -f report/query/pick.awk -v cols=theta,levels,eta,decompose,config $(TEST_DIR)/feature-probe.csv) && \
	  [ "$$got" = "0.3,3,0.1,," ]; then \
	  echo "PASS features: the judge writes theta, levels and eta in their own columns (0.3, 3, 0.1), decompose empty, config the step's own"; \
	else echo "FAIL features: theta,levels,eta,decompose,config of the row: '$${got:-none}' (want 0.3,3,0.1,,)"; exit 1; fi

# A run resumed from a snapshot writes its snapshots on its own schedule: every K steps from its start.
.PHONY: test-resume
# It needs a CPU step that computes: the first one written (none in a fresh handout: SKIP).
RESUME_BIN := $(firstword $(TEST_CPU_WRITTEN_BINS))
test-resume: $(RESUME_BIN)  ## a run resumed from a snapshot (step 10) writes snapshots every K of its own steps
ifeq ($(RESUME_BIN),)
	@echo "SKIP resume: no CPU step written yet (TODO: $(foreach s,$(filter $(CPU_IDS),$(STEP_TODO)),$(call folder_of,$(s))))"
else
	@d=$(TEST_DIR)/resume; rm -rf $$d && mkdir -p $$d/snaps && \
	$(RESUME_BIN) -q -n 64 -k 10 -r 1 --validate off -o $$d/at10.nbs && \
	$(RESUME_BIN) -q -i $$d/at10.nbs -k 8 -r 1 --validate off --snapshot-every 4 --snapshot-dir $$d/snaps && \
	got=$$(cd $$d/snaps && ls | tr '\n' ' ') && \
	if [ "$$got" = "snap-0000000014.nbs snap-0000000018.nbs " ]; then \
	  echo "PASS resume: a run resumed at step 10 wrote its snapshots at steps 14 and 18"; \
	else echo "FAIL resume: snapshots written: '$$got' (want steps 14 and 18)"; exit 1; fi
endif

# The tipsy and HDF5 formats (common/formats.h) from outside: round trips bit for bit, files written by
# hand (tests/formats_foreign.c), and pynbody (PyPI, into a venv of its own under $(BUILD), kept): tests/formats-check.sh.
FORMATS_FOREIGN := $(TEST_DIR)/bin/formats_foreign
FORMATS_VENV := $(BUILD)/venv-pynbody
$(FORMATS_FOREIGN): tests/formats_foreign.c $(BUILD)/obj/common/hdf5io.o
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) $$(test -s $(BUILD)/gen/hdf5.libs && echo -DNB_HAVE_HDF5 $$(pkg-config --cflags hdf5)) \
	  $(LDFLAGS) -o $@ $< $(HDF5_LIBS) -lm

.PHONY: test-formats test-pynbody
test-formats: $(RESUME_BIN) $(NBCONVERT) $(FORMATS_FOREIGN)  ## tipsy and HDF5: lab -> format -> lab bit for bit, and files written by hand start a run
ifeq ($(RESUME_BIN),)
	@echo "SKIP formats: no CPU step written yet (TODO: $(foreach s,$(filter $(CPU_IDS),$(STEP_TODO)),$(call folder_of,$(s))))"
else
	@bash tests/formats-check.sh roundtrip $(RESUME_BIN) $(NBCONVERT) $(FORMATS_FOREIGN) $(TEST_DIR)/formats
endif
test-pynbody: $(RESUME_BIN) $(NBCONVERT)  ## pynbody opens the lab's tipsy and HDF5 files (a venv under build/, made once; SKIP without PyPI)
ifeq ($(RESUME_BIN),)
	@echo "SKIP pynbody: no CPU step written yet (TODO: $(foreach s,$(filter $(CPU_IDS),$(STEP_TODO)),$(call folder_of,$(s))))"
else
	@bash tests/formats-check.sh pynbody $(RESUME_BIN) $(NBCONVERT) $(TEST_DIR)/pynbody $(FORMATS_VENV)
endif

# The exchange of the MPI steps (common/exchange.c) with a CPU force function, under mpirun -np 1, 2, 3,
# and a rank that fails or is killed: tests/mpi-ranks.sh. No GPU needed; OpenMPI is installed like Check.
MPI_TEST := $(TEST_DIR)/bin/mpi_exchange
$(MPI_TEST): tests/mpi_exchange.c $(MPI_OBJ) $(LIBNBODY) | $(BUILD)/.deps-mpi
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) $(MPI_CFLAGS) $(LDFLAGS) -o $@ $< $(MPI_OBJ) $(LIBNBODY) $(MPI_LIBS) $(LDLIBS)

.PHONY: test-mpi
test-mpi: $(MPI_TEST)  ## the MPI exchange (ring, allgather) on 1-3 ranks against one process; failing and killed ranks
	@bash tests/mpi-ranks.sh $(MPI_TEST)

.PHONY: test-tables
test-tables:  ## README.md, REPORT.md and the lessons' measured blocks are what make figures writes from report/data; relative links resolve
	@bash report/tables/tables-check.sh
	@bash report/tables/links-check.sh --selftest
	@bash report/tables/links-check.sh

.PHONY: test-lessons
test-lessons:  ## a lesson's prose quotes its generated blocks' numbers marked, and they match (tests/lesson-numbers.sh)
	@bash tests/lesson-numbers.sh --selftest
	@bash tests/lesson-numbers.sh

.PHONY: test-registry
test-registry:  ## steps.list is read by column name: a new column changes nothing the shell or make reads (tests/registry-check.sh)
	@bash tests/registry-check.sh

.PHONY: test-ladder
test-ladder: $(GRADER)  ## the grader draws the ladder from a CSV of recorded rows, its ceiling from a recorded gpu.csv (tests/ladder-check.sh)
	@bash tests/ladder-check.sh $(GRADER) $(TEST_DIR)/ladder

.PHONY: test-floors
test-floors:  ## the grader's includes stand on floors (grading/floors.sh), and common/ includes nothing above it
	@bash grading/floors.sh
	@! grep -n '#include "' common/*.c common/*.h common/*.cu | grep -E '"(grade|text|proc|rows|gpus|registry|options|judge|cases|timed_run|race|table|ladder_plot)\.h"' || \
	  { echo "FAIL floors: common/ includes a grading/ header"; exit 1; }
	@echo "PASS floors: common/ includes nothing of grading/"

.PHONY: test-todo
test-todo:  ## every stub's TODO message read whole by grading/todo.awk, one split over lines too (tests/todo-check.sh)
	@bash tests/todo-check.sh

.PHONY: test-conf
test-conf:  ## the grade's constants have one home, lab.conf: make, the grader and the report read it (tests/lab-conf-check.sh)
	@bash tests/lab-conf-check.sh

.PHONY: test-answers
test-answers:  ## [instructors] the instructors' worked answers that are code or a CPU build still hold (tests/answers.sh)
	@test -f tests/answers.sh || { echo "make test-answers: the instructors' check (tests/answers.sh) is not in this copy"; exit 2; }
	@bash tests/answers.sh $(BUILD)/answers

# REBOUND (PyPI, a venv under $(BUILD) made once by the test) integrates the lab's initial state with the
# lab's scheme; each step's final state must agree to float32 precision (tests/rebound.sh). STEPS="02 05"
# takes other steps (a GPU step without a GPU: SKIP); by default the CPU steps.
REBOUND_STEPS = $(or $(STEPS),$(CPU_IDS))
REBOUND_BINS = $(foreach s,$(filter-out $(STEP_TODO),$(REBOUND_STEPS)),$(if $(or $(filter $(s),$(CPU_IDS)),$(HAVE_NVCC)),$(call BIN,$(s))))
.PHONY: test-rebound
test-rebound: $(REBOUND_BINS)  ## REBOUND's leapfrog from the lab's bodies: steps 00 and 01 (or STEPS="02 05", GPU) agree to fp32 (tests/rebound.sh)
	@NB_TEST_TODO='$(foreach s,$(STEP_TODO),$(call folder_of,$(s)))' STEPS='$(REBOUND_STEPS)' \
	  bash tests/rebound.sh $(TEST_DIR)/rebound $(BUILD)/venv-rebound $(BUILD)/bin

# make test also checks the handout and every bad input (make sanitize passes TEST_EXTRA= to skip them).
# test-answers (tests/answers.sh) is the instructors' and not in a handout.
TEST_EXTRA ?= test-features test-resume test-formats test-pynbody test-rebound test-mpi test-handout test-hardening test-deterministic test-tables test-lessons test-registry test-todo test-conf test-floors test-tools test-stagger test-ladder \
  $(if $(wildcard tests/answers.sh),test-answers)
# Its last line is the verdict, "N passed, N failed, N skipped" (tests/all.sh); the compilers' command
# lines show with V=1 only.
V ?=
test:  ## Check suites (units, CPU steps, GPU steps: SKIP without a GPU), then the bad-input and other checks; the last line is the verdict; V=1 shows the compilers' lines
	@$(TEST_ENV) bash tests/all.sh $(TEST_DIR) '$(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s)' \
	  '$(strip $(filter-out $(HANDOUT_REFUSES),$(TEST_EXTRA)))' -- \
	  $(TEST_UNIT_PROGS) $(TEST_STEP_ARGS)

check: test  ## the same as make test

test-gpu: $(TEST_GPU_PROGS)  ## run the GPU steps' suites only (needs nvcc and a GPU)
ifeq ($(HAVE_NVCC),)
	@echo "make test-gpu: nvcc not found (install the CUDA Toolkit, or NVCC=/path/to/nvcc)"; exit 2
else
	@$(TEST_ENV) bash tests/run.sh --require-run $(TEST_DIR) $(TEST_GPU_ARGS)
	@$(MAKE) --no-print-directory test-deterministic
endif

# Steps with NB_FEATURE_DETERMINISTIC: two --deterministic runs write the same snapshot bytes (GPU; SKIP without).
DETERMINISTIC_BINS := $(if $(HAVE_NVCC),$(foreach s,$(TEST_GPU),$(call BIN,$(s))))
.PHONY: test-deterministic
test-deterministic: $(DETERMINISTIC_BINS)  ## two --deterministic runs of each GPU step that takes it: the same bytes
	@bash tests/deterministic.sh $(TEST_DIR)/deterministic $(DETERMINISTIC_BINS)

# Keep the objects make would otherwise delete as intermediates of the pattern rules.
.SECONDARY: $(TEST_UNITS:%=$(TEST_OBJ)/check_%.o) $(TEST_OBJ)/testlib.o
