# Makefile: the lab's one entry point. `make help` lists every target.
#
# Everything is driven by steps.list (the registry). Binaries go to $(BUILD)/bin/<folder>.
# Overridable: CC NVCC CFLAGS NVCCFLAGS CUDA_ARCH BUILD DEPS_ROOT STEP STEPS.

.DEFAULT_GOAL := all
SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:
# make grade prints its table and verdicts, not the grader's compiler lines (V=1 shows them; errors show anyway).
ifneq ($(V),1)
ifneq ($(filter grade grade-%,$(MAKECMDGOALS)),)
MAKEFLAGS += -s
endif
endif

# ---- tools and flags ---------------------------------------------------------------------
ifeq ($(origin CC),default)
CC := gcc
endif
# No CUDA Toolkit here: NVIDIA's compiler from PyPI in the lab's own folder, once fetched (make nvcc, or
# make grade, which fetches it as it installs Check: common/deps.sh nvcc), so GPU steps compile anywhere.
PYPI_NVCC := $(CURDIR)/.deps/cuda/bin/nvcc
NVCC      ?= $(if $(shell command -v nvcc 2>/dev/null),nvcc,$(PYPI_NVCC))
BUILD     ?= build
CFLAGS    ?= -O2 -g
LDFLAGS   ?=
NVCC_LDFLAGS ?=
NVCCFLAGS ?= -O3 -lineinfo
# Where Debian packages were unpacked by hand (GPU machines without apt): their headers and libraries.
DEPS_ROOT ?=
# A label for this build in the results CSV, and extra -D flags for the step sources (sweeps).
BUILD_LABEL ?= default
STEP_DEFS   ?=
# Replaces a step's flags from steps.list in a variant build: none, or e.g. --use_fast_math.
STEP_FLAGS  ?=

HAVE_NVCC := $(shell command -v $(NVCC) 2>/dev/null)
# Build for the GPU that is here; sm_90 (H100/H200) where there is none (CI).
CUDA_ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
ifeq ($(strip $(CUDA_ARCH)),)
override CUDA_ARCH := 90
endif

# ISO C: no FMA contraction and no GNU extensions, so fp32 results are the same on every x86 machine.
LAB_CFLAGS := -std=c11 -Wall -Wextra -Wshadow -Werror=implicit-function-declaration -fopenmp -Icommon -I$(BUILD)/gen
LAB_NVCCFLAGS := -std=c++17 -arch=sm_$(CUDA_ARCH) -Icommon -I$(BUILD)/gen -Xcompiler -Wall,-fopenmp
LDLIBS := -lz -lm -lpthread
ifneq ($(DEPS_ROOT),)
DEPS_LIBDIR := $(DEPS_ROOT)/usr/lib/x86_64-linux-gnu
LAB_CFLAGS += -isystem $(DEPS_ROOT)/usr/include
LAB_NVCCFLAGS += -isystem $(DEPS_ROOT)/usr/include
LDLIBS := -L$(DEPS_LIBDIR) $(LDLIBS)
endif

# ---- the registry ------------------------------------------------------------------------
# make reads steps.list through the shell's one reader (common/steps.sh), into $(BUILD)/gen/steps.tsv:
# the column names, then one tab-separated line per step, the flags as compiler words (the reader turns
# steps.list's "\," into a comma inside one flag). It is rewritten only when it changes. The functions
# below pick a column by its name, so a new column in steps.list moves nothing here. (Written through a
# temporary file and renamed: makes running side by side never read half a table.)
REGISTRY := $(BUILD)/gen/steps.tsv
ifneq ($(shell mkdir -p $(BUILD)/gen && t=$$(mktemp $(REGISTRY).XXXXXX) && \
    { bash common/steps.sh registry_table > $$t || { rm -f $$t; exit 1; }; } && \
    { cmp -s $$t $(REGISTRY) && rm -f $$t || mv $$t $(REGISTRY); } && echo ok),ok)
$(error steps.list: common/steps.sh could not read the registry)
endif
# $(call registry,ID,COLUMN): one step's column; $(call registry_all,COLUMN): every step's, in order.
registry_awk = awk -F'\t' -v id='$(1)' -v col='$(2)' 'NR == 1 { for (k = 1; k <= NF; ++k) c[$$k] = k; next } $(3)' $(REGISTRY)
registry = $(shell $(call registry_awk,$(1),$(2),$$c["id"] == id { print $$c[col] }))
registry_all = $(shell $(call registry_awk,,$(1),{ print $$c[col] }))
STEP_IDS := $(call registry_all,id)
folder_of = $(call registry,$(1),folder)
lang_of = $(call registry,$(1),lang)
flags_of = $(filter-out none,$(call registry,$(1),flags))
from_of = $(filter-out -,$(call registry,$(1),from))
check_of = $(call registry,$(1),check)
features_of = $(call registry,$(1),features)
ranks_of = $(or $(patsubst mpi:%,%,$(call launch_of,$(1))),0)
launch_of = $(filter-out -,$(call registry,$(1),launch))
summary_of = $(call registry,$(1),summary)
CPU_IDS := $(foreach s,$(STEP_IDS),$(if $(filter c,$(call lang_of,$(s))),$(s)))
GPU_IDS := $(foreach s,$(STEP_IDS),$(if $(filter cu,$(call lang_of,$(s))),$(s)))
BIN = $(BUILD)/bin/$(call folder_of,$(1))
CPU_BINS := $(foreach s,$(CPU_IDS),$(call BIN,$(s)))
GPU_BINS := $(foreach s,$(GPU_IDS),$(call BIN,$(s)))

# ---- version stamp: the toolchain in a header, the commit in one small object ------------------
# COMMIT may come from outside (a copy of the tree without .git, as on the lent GPU machines).
# Outside a git repository there is no commit to name and nothing to call dirty: a handout (its .handout
# stamp names the lab's commit it was made from) is "handout-<that commit>", any other tree "unknown".
# A handout's commit is its own repository's only (the student's git init), not one it lies inside.
ifndef COMMIT
GIT_HEAD := $(if $(and $(wildcard .handout),$(filter-out $(CURDIR),$(shell git rev-parse --show-toplevel 2>/dev/null))),,$(shell git rev-parse --short=12 HEAD 2>/dev/null))
ifneq ($(GIT_HEAD),)
COMMIT := $(GIT_HEAD)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
else ifneq ($(wildcard .handout),)
COMMIT := handout-$(shell sed -nE '1s/^handout of the N-body lab, from commit ([0-9A-Za-z-]+),.*/\1/p' .handout)
else
COMMIT := unknown
endif
endif
# version.h names the compilers and flags: changing CC or CFLAGS rebuilds what depends on it (every
# object). It only declares the commit: an edit anywhere makes the tree -dirty, and that must not
# recompile common/; the commit itself is $(BUILD)/gen/commit.c, one object in libnbody.a, relinked.
TOOLCHAIN = $(shell $(CC) --version 2>/dev/null | head -n1) | $(CFLAGS) | $(shell $(NVCC) --version 2>/dev/null | tail -n1) | $(NVCCFLAGS)
$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(@D)
	@printf 'extern const char nb_commit[];\n#define NB_COMMIT nb_commit\n#define NB_VERSION "1.0"\n/* built with: %s */\n' '$(subst ','',$(subst */,,$(TOOLCHAIN)))' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/gen/commit.c: FORCE
	@mkdir -p $(@D)
	@printf '/* written by make: the commit of this build (NB_COMMIT, version.h) */\nconst char nb_commit[] = "%s";\n' '$(subst ',,$(subst ",,$(subst \,,$(COMMIT))))' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

# ---- common/: libnbody.a, and the two platforms --------------------------------------------
COMMON_SRC := child.c cli.c comm_single.c device_query.c features.c float_range.c formats.c hdf5io.c init.c progress.c \
  protocol.c refcache.c reference.c replace.c results.c rng.c sha256.c sink.c snapshot.c state.c timing.c tipsy.c util.c \
  validate.c variant.c worker_call.c
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/obj/common/%.o) $(BUILD)/obj/common/commit.o
LIBNBODY := $(BUILD)/lib/libnbody.a

$(BUILD)/obj/common/%.o: common/%.c $(BUILD)/gen/version.h | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -include version.h -MMD -MP -c $< -o $@

# HDF5 (common/hdf5io.c, GADGET/SWIFT snapshots) is optional: $(BUILD)/.deps-hdf5 installs it where it can,
# and hdf5io.o is compiled with it when pkg-config finds it then, else without (every HDF5 call then says
# so in one line). Its compile writes the libraries it needs to $(BUILD)/gen/hdf5.libs (empty without it),
# which the links of the programs that read or write formats (HDF5_LIBS) add: the same choice both times.
# HDF5 installed later: remove the stamp, and make compiles hdf5io.o again (the stamp is a prerequisite).
HDF5_LIBS = $(shell cat $(BUILD)/gen/hdf5.libs 2>/dev/null)
$(BUILD)/obj/common/hdf5io.o: common/hdf5io.c $(BUILD)/gen/version.h $(BUILD)/.deps-hdf5 | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	@if pkg-config --exists hdf5 2>/dev/null; then pkg-config --libs hdf5 > $(BUILD)/gen/hdf5.libs; \
	  else : > $(BUILD)/gen/hdf5.libs; fi
	$(CC) $(LAB_CFLAGS) $(CFLAGS) $$(test -s $(BUILD)/gen/hdf5.libs && echo -DNB_HAVE_HDF5 $$(pkg-config --cflags hdf5)) \
	  -include version.h -MMD -MP -c $< -o $@

$(BUILD)/obj/common/commit.o: $(BUILD)/gen/commit.c $(BUILD)/gen/version.h
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -include version.h -c $< -o $@

$(LIBNBODY): $(COMMON_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/obj/common/device.o: common/device.cu common/device.h common/nbody.h common/platform.h common/timing.h $(BUILD)/gen/version.h
	@mkdir -p $(@D)
	$(NVCC) $(LAB_NVCCFLAGS) $(NVCCFLAGS) -c $< -o $@

# ---- MPI: the steps registered with launch mpi:R (steps.list) --------------------------------
# Read when a recipe runs, after $(BUILD)/.deps-mpi may have installed OpenMPI. comm_mpi.o goes ahead
# of libnbody.a, so its comm.h wins over comm_single.o; exchange.o is the ring and the allgather.
MPI_CFLAGS = $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS = $(shell mpicc --showme:link 2>/dev/null)
# nvcc takes -I, -L and -l itself; anything else goes to the host compiler.
mpi_for_nvcc = $(foreach f,$(1),$(if $(filter -I% -L% -l%,$(f)),$(f),-Xcompiler=$(f)))
MPI_OBJ := $(BUILD)/obj/mpi/comm_mpi.o $(BUILD)/obj/mpi/exchange.o

$(BUILD)/obj/mpi/%.o: common/%.c $(BUILD)/gen/version.h | $(BUILD)/.deps-mpi $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

# ---- one rule set per step ----------------------------------------------------------------
# A step is two programs (common/README.md, "The judge and the worker"): build/bin/<folder>, the judge
# (common/judge.c, compiled with the step's registry line, never linked with the step's code), and
# build/bin/<folder>-worker, the step's nb_step_run with the worker's shim (common/worker.c) and its
# platform (host.o or device.o). Building the judge builds its worker.
# The recipe that compiles the judge for a program: $(1) id, $(2) name, $(3) build label. The summary and
# features are the registry's, or SUMMARY_$(1) / FEATURES_$(1) for a program outside it (the tests' probe).
compile_judge = $(CC) $(LAB_CFLAGS) $(CFLAGS) -include version.h -MMD -MP -DNB_STEP_ID='"$(1)"' -DNB_STEP_NAME='"$(2)"' \
  -DNB_STEP_SUMMARY='"$(or $(SUMMARY_$(1)),$(call summary_of,$(1)))"' \
  -DNB_STEP_FEATURES='"$(or $(FEATURES_$(1)),$(call features_of,$(1)),-)"' \
  -DNB_STEP_GPU=$(if $(filter cu,$(call lang_of,$(1))),1,0) -DNB_STEP_RANKS=$(call ranks_of,$(1)) \
  -DNB_BUILD_LABEL='"$(3)"' -c $< -o $@
compile_worker = $(CC) $(LAB_CFLAGS) $(CFLAGS) -MMD -MP -DNB_STEP_NAME='"$(2)"' -c $< -o $@
# The worker's objects, and the link of a judge (its worker, a prerequisite, is not linked in).
worker_objs = $(BUILD)/obj/$(2)/worker.o $(if $(filter cu,$(3)),$(BUILD)/obj/common/device.o $(if $(call launch_of,$(1)),$(MPI_OBJ)),$(BUILD)/obj/common/host.o) $(LIBNBODY)
link_judge = $(CC) -fopenmp $(LDFLAGS) -o $@ $(filter-out %-worker,$^) $(HDF5_LIBS) $(LDLIBS)

# The compile line of GPU step $(1), but for -c and -o (make regs and make profile compile with it too).
nvcc_step = $(NVCC) $(LAB_NVCCFLAGS) $(NVCCFLAGS) $(if $(STEP_FLAGS),$(filter-out none,$(STEP_FLAGS)),$(call flags_of,$(1))) $(STEP_DEFS) \
  $(if $(call launch_of,$(1)),$(call mpi_for_nvcc,$(MPI_CFLAGS)))

# A step source saved while it compiles (an editor, during make test) gives an object of the old or a
# half-written file that is newer than the source, so make would keep it: its time is noted before the
# compile, compared after; changed, the object is removed and make stops (run it again).
source_time = stat -c %y $(1) > $(2).srctime
source_unchanged = test "$$(stat -c %y $(1))" = "$$(cat $(2).srctime 2>/dev/null)" && rm -f $(2).srctime || \
  { rm -f $(2) $(2).srctime; echo "$(1) changed while it compiled: its object is removed; run make again" >&2; exit 1; }

# $(1) id, $(2) folder, $(3) lang
define STEP_RULES
$(BUILD)/obj/$(2)/judge.o: common/judge.c $(BUILD)/gen/version.h steps.list | $(BUILD)/.deps-zlib
	@mkdir -p $$(@D)
	$$(call compile_judge,$(1),$(2),$$(BUILD_LABEL))

$(BUILD)/obj/$(2)/worker.o: common/worker.c steps.list | $(BUILD)/.deps-zlib
	@mkdir -p $$(@D)
	$$(call compile_worker,$(1),$(2))

$(BUILD)/bin/$(2): $(BUILD)/obj/$(2)/judge.o $(LIBNBODY) $(BUILD)/bin/$(2)-worker
	@mkdir -p $$(@D)
	$$(link_judge)

ifeq ($(3),c)
$(BUILD)/obj/$(2)/nbody.o: $(2)/nbody.c steps.list $(BUILD)/gen/version.h | $(BUILD)/.deps-zlib
	@mkdir -p $$(@D) && $$(call source_time,$$<,$$@)
	$$(CC) $$(LAB_CFLAGS) $$(CFLAGS) $$(if $$(STEP_FLAGS),$$(filter-out none,$$(STEP_FLAGS)),$(call flags_of,$(1))) $$(STEP_DEFS) -MMD -MP -c $$< -o $$@
	@$$(call source_unchanged,$$<,$$@)

$(BUILD)/bin/$(2)-worker: $(BUILD)/obj/$(2)/nbody.o $(call worker_objs,$(1),$(2),$(3))
	@mkdir -p $$(@D)
	$$(CC) -fopenmp $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
else
$(BUILD)/obj/$(2)/nbody.o: $(2)/nbody.cu common/nbody.h common/device.h steps.list $(BUILD)/gen/version.h $(if $(call launch_of,$(1)),| $(BUILD)/.deps-mpi)
	@mkdir -p $$(@D) && $$(call source_time,$$<,$$@)
	$$(call nvcc_step,$(1)) -c $$< -o $$@
	@$$(call source_unchanged,$$<,$$@)

$(BUILD)/bin/$(2)-worker: $(BUILD)/obj/$(2)/nbody.o $(call worker_objs,$(1),$(2),$(3))
	@mkdir -p $$(@D)
	$$(NVCC) -arch=sm_$$(CUDA_ARCH) -o $$@ $$^ -Xcompiler -fopenmp $$(NVCC_LDFLAGS) $(if $(call launch_of,$(1)),$$(call mpi_for_nvcc,$$(MPI_LIBS))) $$(LDLIBS)
endif

# The lab's own parts of a step, all but the student's source: the grader builds them first, then the
# step in a sandbox (grading/build.c).
.PHONY: step$(1)-lab
step$(1)-lab: $(BUILD)/obj/$(2)/judge.o $(call worker_objs,$(1),$(2),$(3)) $(BUILD)/gen/version.h | $(BUILD)/.deps-zlib $(if $(call launch_of,$(1)),$(BUILD)/.deps-mpi)

.PHONY: step$(1)
ifeq ($(3)$(HAVE_NVCC),cu)
step$(1):
	@echo "skipping $(2): nvcc not found (install the CUDA Toolkit, or NVCC=/path/to/nvcc)"
else
step$(1): $(BUILD)/bin/$(2)
endif
endef
$(foreach s,$(STEP_IDS),$(eval $(call STEP_RULES,$(s),$(call folder_of,$(s)),$(call lang_of,$(s)))))

$(BUILD)/obj/common/host.o: common/host.c $(BUILD)/gen/version.h | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- dependencies: install them, or say exactly how ---------------------------------------
$(BUILD)/.deps-%: common/deps.sh
	@mkdir -p $(@D)
	@DEPS_ROOT='$(DEPS_ROOT)' CC='$(CC)' bash common/deps.sh $*
	@touch $@
# HDF5 is optional: without it the lab builds with HDF5 compiled out (common/README.md, "Other file formats").
$(BUILD)/.deps-hdf5: common/deps.sh
	@mkdir -p $(@D)
	@DEPS_ROOT='$(DEPS_ROOT)' CC='$(CC)' bash common/deps.sh hdf5 || \
	  echo "deps: building without HDF5: --input and --output-format hdf5 will say so (exit 2)" >&2
	@touch $@

# ---- the converter: any of the three formats to any (common/formats.h) -------------------------
NBCONVERT := $(BUILD)/tools/nbconvert
$(NBCONVERT): common/nbconvert.c $(LIBNBODY) $(BUILD)/gen/version.h | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -include version.h $(LDFLAGS) -o $@ $< $(LIBNBODY) $(HDF5_LIBS) $(LDLIBS)
.PHONY: nbconvert
nbconvert: $(NBCONVERT)                              ## build build/tools/nbconvert: a snapshot, tipsy or HDF5 file to any of the three

.PHONY: nvcc
nvcc:  ## no CUDA Toolkit here: fetch NVIDIA's compiler from PyPI into .deps/cuda (make grade does it itself)
	@bash common/deps.sh nvcc

# ---- top-level targets --------------------------------------------------------------------
.PHONY: all cpu gpu clean diff help
all: $(CPU_BINS) $(if $(HAVE_NVCC),$(GPU_BINS),gpu) $(NBCONVERT)  ## build every step (GPU steps where nvcc exists) and nbconvert
cpu: $(CPU_BINS)                                     ## build the CPU steps only
gpu: $(if $(HAVE_NVCC),$(GPU_BINS))                  ## build the GPU steps (needs nvcc)
ifeq ($(HAVE_NVCC),)
	@echo "skipping the GPU steps ($(GPU_IDS)): nvcc not found (install the CUDA Toolkit, or NVCC=/path/to/nvcc)"
endif

diff:                                                ## show a step's change against the step it grows from: make diff STEP=04
	@test -n "$(STEP)" || { echo "usage: make diff STEP=NN (e.g. STEP=04 shows step03 -> step04; STEP=09 shows step06 -> step09)"; exit 2; }
	@cur='$(call folder_of,$(STEP))'; test -n "$$cur" || { echo "make diff: no step $(STEP) in steps.list"; exit 2; }; \
	prev='$(call folder_of,$(call from_of,$(STEP)))'; \
	test -n "$$prev" || { echo "make diff: step $(STEP) grows from no other step (steps.list, column from)"; exit 2; }; \
	a=$$(ls $$prev/nbody.c* 2>/dev/null | head -n1); b=$$(ls $$cur/nbody.c* 2>/dev/null | head -n1); \
	test -n "$$b" || { echo "make diff: $$cur has no nbody.c or nbody.cu yet"; exit 2; }; \
	git diff --no-index --color=auto $$a $$b; test $$? -le 1

clean:                                               ## remove build/ (recorded data in report/data stays)
	rm -rf $(BUILD)

help:                                                ## list every target
	@echo "The N-body optimisation ladder. Targets:"
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | $(if $(IS_HANDOUT),grep -vE '## \[(instructors|lab)\]' |) \
	  sed -E 's/^([a-zA-Z0-9_-]+):.*## (.*)$$/  make \1\t\2/' | expand -t 24
	@echo "  make stepNN             build one step (e.g. make step03)"
	@echo "Variables: STEP=NN STEPS=\"00 01 05\" CUDA_ARCH=$(CUDA_ARCH) CC=$(CC) NVCC=$(NVCC) BUILD=$(BUILD)"

-include tests/tests.mk
-include grading/grading.mk
-include grading/slurm.mk
-include report/report.mk
-include tests/hardening.mk
-include grading/handout.mk
-include grading/class/class.mk
-include report/tools/tools.mk

# ---- the instructors' targets ----------------------------------------------------------------
# A target whose help text opens with "## [instructors]" is theirs alone (the planted faults edit their
# solutions, the answers' check reads their answers), one with "## [lab]" works in the lab only (make
# handout makes the copy from it): in a handout (it has .handout) make help leaves them out, make test
# does not run them, and asking for one stops with one line.
IS_HANDOUT := $(wildcard .handout)
# The class targets are defined in grading/class/class.mk, itself the instructors' and not in a
# handout: named here, so that a handout refuses them with this line, not make's "No rule".
INSTRUCTORS_TARGETS := $(sort grade-class test-class gradescope prairielearn test-platforms \
  $(shell sed -nE 's/^([a-zA-Z0-9_-]+):.*\#\# \[(instructors|lab)\].*/\1/p' $(MAKEFILE_LIST)))
HANDOUT_REFUSES := $(if $(IS_HANDOUT),$(INSTRUCTORS_TARGETS))
ifneq ($(filter $(HANDOUT_REFUSES),$(MAKECMDGOALS)),)
$(error make $(firstword $(filter $(HANDOUT_REFUSES),$(MAKECMDGOALS))): the instructors' or the lab's target, not for a handout (make help lists what works here))
endif
