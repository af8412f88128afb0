# report/tools/tools.mk: a student's look inside a GPU step (included by the top-level Makefile).
#   make regs STEP=NN      ptxas's registers, spills, shared memory and stack per kernel, beside the step
#                          it grows from (nvcc only: report/tools/regs.sh)

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
