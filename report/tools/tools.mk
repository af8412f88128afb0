# report/tools/tools.mk: a student's look inside a GPU step (included by the top-level Makefile).
#   make regs STEP=NN      ptxas's registers, spills, shared memory and stack per kernel, beside the step
#                          it grows from (nvcc only: report/tools/regs.sh)
#   make profile STEP=NN   Nsight Compute's figures of the force kernel(s), beside the step it grows from
#                          (ncu and a GPU: report/tools/profile.sh)

# A step's id, folder, language and compile line, quoted for the shell: $(call step_words,ID).
shell_quote = '$(subst ','\'',$(1))'
step_words = $(call shell_quote,$(1)) $(call shell_quote,$(call folder_of,$(1))) $(call shell_quote,$(call lang_of,$(1))) \
  $(call shell_quote,$(if $(filter cu,$(call lang_of,$(1))),$(call nvcc_step,$(1))))
# The step STEP names and the one it grows from; the MPI steps need OpenMPI's headers to compile.
TOOLS_FROM = $(call from_of,$(STEP))
TOOLS_MPI = $(if $(filter mpi%,$(call launch_of,$(STEP)) $(if $(TOOLS_FROM),$(call launch_of,$(TOOLS_FROM)))),$(BUILD)/.deps-mpi)

.PHONY: regs
regs: $(BUILD)/gen/version.h $(if $(filter cu,$(call lang_of,$(STEP))),$(TOOLS_MPI))  ## registers, spills, shared memory and stack per kernel of a GPU step, beside the one it grows from: make regs STEP=04
ifeq ($(HAVE_NVCC),)
	@echo "make regs: nvcc not found (install the CUDA Toolkit, or NVCC=/path/to/nvcc)" >&2; exit 2
else
	@bash report/tools/regs.sh $(BUILD)/regs $(call step_words,$(STEP)) $(if $(TOOLS_FROM),$(call step_words,$(TOOLS_FROM)))
endif

# make profile: the ladder's N (make grade's GRADE_N), PROFILE_STEPS time steps measured, CSVs in PROFILE_OUT.
PROFILE_OUT ?= $(BUILD)/profile
PROFILE_STEPS ?= 2
NCU ?= ncu
HAVE_NCU := $(shell command -v $(NCU) 2>/dev/null)
profile_words = $(call shell_quote,$(1)) $(call shell_quote,$(call folder_of,$(1))) $(call shell_quote,$(call lang_of,$(1)))
TOOLS_GPU_BINS = $(foreach s,$(STEP) $(TOOLS_FROM),$(if $(filter cu,$(call lang_of,$(s))),$(call BIN,$(s))))

.PHONY: profile
profile: $(if $(and $(HAVE_NVCC),$(HAVE_NCU)),$(TOOLS_GPU_BINS))  ## Nsight Compute's figures of a GPU step's kernels (ncu and a GPU), beside the one it grows from: make profile STEP=04
	@NCU='$(NCU)' PROFILE_STEPS='$(PROFILE_STEPS)' COMMIT='$(COMMIT)' bash report/tools/profile.sh '$(PROFILE_OUT)' $(BUILD)/bin '$(or $(GRADE_N),65536)' \
	  $(call profile_words,$(STEP)) $(if $(TOOLS_FROM),$(call profile_words,$(TOOLS_FROM)))

# What regs.sh and profile.sh read back from ptxas's and ncu's output, checked with stand-ins for nvcc,
# ncu and nvidia-smi (no GPU needed): part of make test.
.PHONY: test-tools
test-tools:  ## make regs's and make profile's readers on ptxas's and ncu's output forms (tests/tools-check.sh)
	@bash tests/tools-check.sh $(BUILD)/tools-check
