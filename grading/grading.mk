# grading/grading.mk: make grade, grade-plot and grade-selftest (included by the top-level Makefile).
# The grader is grading/grade.c and its parts (GRADER_SRC); what it checks and times is in grading/README.md.
#   make grade                  every step of steps.list      make grade STEP=03 / STEPS="00 01 05"
#   GRADE_N GRADE_S GRADE_STEPS (GPU time steps) GRADE_CPU_STEPS GRADE_REPEAT: the timed run
#   GRADE_CHECK_N GRADE_JOBS GRADE_TIMEOUT (seconds per case): the correctness cases

GRADE_DIR       ?= $(BUILD)/grade
# The grade's constants have one home, lab.conf (read as data by grading/lab-conf.sh): its values become
# LAB_GRADE_N ... here, the defaults below, and the grader's own defaults (-D, options.c), so that
# grade --help and a grade without make say the same. A command line's or the environment's wins.
LAB_CONF_GRADE := GRADE_N GRADE_S GRADE_STEPS GRADE_CPU_STEPS GRADE_REPEAT GRADE_TIMEOUT GRADE_CHECK_N
$(foreach kv,$(shell bash grading/lab-conf.sh $(LAB_CONF_GRADE)),$(eval LAB_$(kv)))
$(foreach k,$(LAB_CONF_GRADE),$(if $(LAB_$(k)),,$(error lab.conf: no value for $(k) (grading/lab-conf.sh))))
GRADE_N         ?= $(LAB_GRADE_N)
GRADE_S         ?= $(LAB_GRADE_S)
GRADE_STEPS     ?= $(LAB_GRADE_STEPS)
GRADE_CPU_STEPS ?= $(LAB_GRADE_CPU_STEPS)
GRADE_REPEAT    ?= $(LAB_GRADE_REPEAT)
GRADE_TIMEOUT   ?= $(LAB_GRADE_TIMEOUT)
lab_comma := ,
GRADE_CHECK_N   ?= $(subst $(lab_comma), ,$(LAB_GRADE_CHECK_N))
# The steps' workers: auto (bubblewrap where it runs, else said once and unsandboxed), require, off.
GRADE_SANDBOX   ?= auto
# Folders (absolute, at most 2) no step's build or worker may see, besides the grader's (grade-class: the
# other submissions).
GRADE_HIDE      ?=
# Correctness cases at once: they are independent; the timed run is always alone.
GRADE_JOBS      ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n < 4 ? n : 4 )))

GRADER    := $(BUILD)/grading/grade
GPU_PROBE := $(BUILD)/grading/gpu_probe
GRADE_ARGS = --registry steps.list --build '$(BUILD)' --out '$(GRADE_DIR)' --make '$(MAKE) COMMIT=$(COMMIT) CUDA_ARCH=$(CUDA_ARCH)' --nvcc '$(NVCC)' \
  --probe '$(GPU_PROBE)' --bodies '$(GRADE_N)' --systems '$(GRADE_S)' --gpu-steps '$(GRADE_STEPS)' \
  --cpu-steps '$(GRADE_CPU_STEPS)' --repeat '$(GRADE_REPEAT)' --timeout '$(GRADE_TIMEOUT)' \
  --check-n '$(GRADE_CHECK_N)' --jobs '$(GRADE_JOBS)' --sandbox '$(GRADE_SANDBOX)' \
  $(foreach d,$(GRADE_HIDE),--sandbox-hide '$(d)')

# The grader's parts, floor by floor (grading/README.md, "Which file does what"): each .c has its own
# header, and includes only headers of its own floor or below; types.h holds the shared types.
GRADER_SRC := text.c proc.c rows.c gpus.c registry.c options.c verdict.c cause.c cases.c timed_run.c race.c build.c table.c \
  ladder_plot.c grade.c
GRADER_OBJ := $(GRADER_SRC:%.c=$(BUILD)/obj/grading/%.o)

$(GRADER_OBJ): $(BUILD)/obj/grading/%.o: grading/%.c $(BUILD)/gen/version.h | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# lab.conf's constants, compiled into the grader's defaults (grading/options.c).
$(BUILD)/obj/grading/options.o: override CFLAGS += $(foreach k,$(LAB_CONF_GRADE),-DLAB_$(k)=$(LAB_$(k)))
$(BUILD)/obj/grading/options.o: lab.conf

$(GRADER): $(GRADER_OBJ) $(LIBNBODY)
	@mkdir -p $(@D)
	$(CC) -fopenmp $(LDFLAGS) -o $@ $^ $(LDLIBS)

# cudaGetDeviceCount, built only where nvcc is; a probe that fails to build or run means "no GPU".
$(GPU_PROBE): grading/gpu_probe.cu
	@mkdir -p $(@D)
	$(NVCC) -o $@ $<

# The probe is built in the recipe, not as a prerequisite: without it GPU steps SKIP, nothing fails.
define grade_probe
$(if $(HAVE_NVCC),$(MAKE) --no-print-directory -s $(GPU_PROBE) >/dev/null 2>&1 || \
  echo "grade: the GPU probe ($(GPU_PROBE)) did not build: GPU steps will be asked of nvidia-smi" >&2;)
endef

.PHONY: grade grade-plot grade-selftest
# gnuplot draws the ladder: installed as Check is (common/deps.sh: apt-get as root, else the exact
# command is printed); without it the grade still runs and writes its CSVs.
define grade_gnuplot
$(MAKE) --no-print-directory -s $(BUILD)/.deps-gnuplot || echo "grade: going on without gnuplot: no ladder figure" >&2;
endef

# bubblewrap, the workers' sandbox: installed as Check is; without it the grade says so and goes on
# (GRADE_SANDBOX=require refuses). Unpacked under DEPS_ROOT (the lent GPU machines), it is found there.
define grade_bwrap
$(MAKE) --no-print-directory -s $(BUILD)/.deps-bwrap >/dev/null 2>&1 || true;
endef
# No CUDA Toolkit here: NVIDIA's compiler fetched from PyPI into .deps/cuda first (common/deps.sh nvcc), as
# Check is installed, so that a GPU step is compiled (a compile error is its FAIL) on any machine.
define grade_nvcc
$(if $(HAVE_NVCC),,$(MAKE) --no-print-directory -s $(BUILD)/.deps-nvcc || echo "grade: going on without nvcc: the GPU steps are SKIP" >&2;)
endef
GRADE_PATH = $(if $(DEPS_ROOT),PATH='$(DEPS_ROOT)/usr/bin':"$$PATH")

# grading/slurm-grade.sh runs the grader, or, with no GPU here and a Slurm partition in lab.conf, sends
# the GPU steps to Slurm (grading/SLURM.md); the knobs go with them to the job.
GRADE_SLURM_ENV = BUILD='$(BUILD)' GRADE_DIR='$(GRADE_DIR)' GPU_PROBE='$(GPU_PROBE)' DEPS_ROOT='$(DEPS_ROOT)' \
  GRADE_N='$(GRADE_N)' GRADE_S='$(GRADE_S)' GRADE_STEPS='$(GRADE_STEPS)' GRADE_CPU_STEPS='$(GRADE_CPU_STEPS)' \
  GRADE_REPEAT='$(GRADE_REPEAT)' GRADE_TIMEOUT='$(GRADE_TIMEOUT)' GRADE_CHECK_N='$(GRADE_CHECK_N)' GRADE_JOBS='$(GRADE_JOBS)' \
  GRADE_SANDBOX='$(GRADE_SANDBOX)' GRADE_HIDE='$(GRADE_HIDE)'

grade: $(GRADER)           ## check and time every step (STEP=NN or STEPS="00 01 05"): table, CSV, ladder plot
	+@$(grade_gnuplot) $(grade_bwrap) $(grade_nvcc) $(grade_probe) $(GRADE_PATH) $(GRADE_SLURM_ENV) bash grading/slurm-grade.sh \
	  '$(strip $(or $(STEPS),$(STEP)))' -- $(GRADER) $(GRADE_ARGS)

grade-plot: $(GRADER)      ## redraw the ladder from the last grade's results.csv (e.g. after installing gnuplot)
	+@$(grade_gnuplot) $(grade_probe) $(GRADER) --out '$(GRADE_DIR)' --probe '$(GPU_PROBE)' --plot '$(GRADE_DIR)/results.csv'

grade-selftest: $(GRADER)  ## [instructors] show the grader FAILs broken copies of step00 (and step03, step12, step13 on a GPU), and the cheats
	+@$(grade_bwrap) $(grade_probe) $(GRADE_PATH) MAKE='$(MAKE)' BUILD='$(BUILD)' GRADER='$(GRADER)' GPU_PROBE='$(GPU_PROBE)' NVCC='$(NVCC)' \
	  GRADE_JOBS='$(GRADE_JOBS)' GRADE_TIMEOUT='$(GRADE_TIMEOUT)' GRADE_CHECK_N='$(GRADE_CHECK_N)' \
	  bash grading/selftest.sh

# A copy of a step's source, built outside the tree exactly as the step is (its flags, its judge, the
# worker's objects, the library), for grade-selftest: make grade-copy COPY_ID=00 COPY_SRC=dir/nbody.c
# COPY_BIN=dir/step00 [COPY_FLAGS=...] makes the judge dir/step00 and its worker dir/step00-worker.
# COPY_RACE=1: the race check's build (grading/race.c): no optimisation, and the macros an optimised build
# defines, so that the source cannot tell the two builds apart.
RACE_FLAGS := -O0 -D__OPTIMIZE__=1 -U__NO_INLINE__
ifneq ($(COPY_BIN),)
COPY_FOLDER := $(call folder_of,$(COPY_ID))
COPY_LANG := $(call lang_of,$(COPY_ID))
ifeq ($(COPY_FOLDER),)
$(error COPY_ID=$(COPY_ID): no such step in steps.list)
endif
.PHONY: grade-copy
grade-copy: $(COPY_BIN)
$(COPY_BIN): $(BUILD)/obj/$(COPY_FOLDER)/judge.o $(LIBNBODY) $(COPY_BIN)-worker
	$(link_judge)
ifeq ($(COPY_LANG),c)
$(COPY_BIN)-worker: $(COPY_SRC) $(call worker_objs,$(COPY_ID),$(COPY_FOLDER),c)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) $(call flags_of,$(COPY_ID)) $(STEP_DEFS) $(COPY_FLAGS) $(if $(COPY_RACE),$(RACE_FLAGS)) -c $< -o $@.o
	$(CC) -fopenmp $(LDFLAGS) -o $@ $@.o $(filter-out $<,$^) $(LDLIBS)
else
$(COPY_BIN)-worker: $(COPY_SRC) $(call worker_objs,$(COPY_ID),$(COPY_FOLDER),cu)
	$(NVCC) $(LAB_NVCCFLAGS) $(NVCCFLAGS) $(call flags_of,$(COPY_ID)) $(STEP_DEFS) $(COPY_FLAGS) $(if $(COPY_RACE),$(RACE_FLAGS)) $(if $(call launch_of,$(COPY_ID)),$(call mpi_for_nvcc,$(MPI_CFLAGS))) -c $< -o $@.o
	$(NVCC) -arch=sm_$(CUDA_ARCH) -o $@ $@.o $(filter-out $<,$^) -Xcompiler -fopenmp $(NVCC_LDFLAGS) $(if $(call launch_of,$(COPY_ID)),$(call mpi_for_nvcc,$(MPI_LIBS))) $(LDLIBS)
endif
endif
