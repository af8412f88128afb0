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

# make view: one self-contained web page that plays a run's snapshots in 3D (report/tools/snap2html.c,
# its page report/tools/view_page.html compiled in as two strings, cut at its marker line).
VIEW_TOOL := $(BUILD)/tools/snap2html
view_escape = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/'
$(BUILD)/gen/view_page.h: report/tools/view_page.html
	@mkdir -p $(@D)
	@grep -qx '<!--DATA-->' $< || { echo "$<: no <!--DATA--> line, where the data goes" >&2; exit 1; }
	@{ echo '/* written by make from $< (report/tools/tools.mk): the page before and after its data */'; \
	  echo 'static const char nb_view_page_head[] ='; sed -n '1,/^<!--DATA-->$$/p' $< | sed '$$d' | $(view_escape); echo ';'; \
	  echo 'static const char nb_view_page_tail[] ='; sed -n '/^<!--DATA-->$$/,$$p' $< | sed 1d | $(view_escape); echo ';'; } > $@.tmp && mv $@.tmp $@

$(VIEW_TOOL): report/tools/snap2html.c $(BUILD)/gen/view_page.h $(LIBNBODY) | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -o $@ $< $(LIBNBODY) $(LDLIBS)

# make view: SNAPS=DIR (its *.nbs) or a run made here: RUN=NN (the step, default 01) with VIEW_N bodies,
# VIEW_STEPS steps, a frame every VIEW_EVERY, VIEW_ARGS its other options (report/tools/view.sh has the
# defaults: a two-sphere collision) into VIEW_SNAPS (build/view/snaps). VIEW_OUT the page
# (build/view/index.html), VIEW_POINTS the most bodies drawn per frame (200000). VIEW_LEVELS and VIEW_ETA
# (taken from VIEW_ARGS's --levels and --eta if it has them): colours by step13's level too.
RUN ?= 01
SNAPS ?=
VIEW_OUT ?= $(BUILD)/view/index.html
VIEW_N ?=
VIEW_STEPS ?=
VIEW_EVERY ?=
VIEW_ARGS ?=
VIEW_POINTS ?=
VIEW_SNAPS ?=
VIEW_LEVELS ?=
VIEW_ETA ?=
.PHONY: view
view: $(VIEW_TOOL) $(if $(SNAPS),,$(if $(call folder_of,$(RUN)),$(call BIN,$(RUN))))  ## a web page that plays a run in 3D: build/view/index.html; SNAPS=DIR (its snapshots) or RUN=NN (a run made here, default 01; VIEW_N VIEW_STEPS VIEW_EVERY VIEW_ARGS)
	@SNAPS='$(SNAPS)' RUN_BIN='$(if $(call folder_of,$(RUN)),$(call BIN,$(RUN)))' RUN='$(RUN)' VIEW_OUT='$(VIEW_OUT)' \
	  VIEW_N='$(VIEW_N)' VIEW_STEPS='$(VIEW_STEPS)' VIEW_EVERY='$(VIEW_EVERY)' VIEW_ARGS='$(VIEW_ARGS)' VIEW_POINTS='$(VIEW_POINTS)' VIEW_SNAPS='$(VIEW_SNAPS)' \
	  VIEW_LEVELS='$(VIEW_LEVELS)' VIEW_ETA='$(VIEW_ETA)' BUILD='$(BUILD)' bash report/tools/view.sh $(VIEW_TOOL)

# The page in a real headless chromium (installed by the test, as make test-class does), checked from its
# screenshots: bodies drawn, and moved between two frames (tests/view-check.sh). Run by .ci/run, not by
# make test. It needs a CPU step written: the first one.
VIEW_TEST_ID := $(firstword $(filter-out $(STEP_TODO),$(CPU_IDS)))
.PHONY: test-view
test-view: $(VIEW_TOOL) $(if $(VIEW_TEST_ID),$(call BIN,$(VIEW_TEST_ID)))  ## make view's page in headless chromium (software GL): bodies drawn, and moving between two frames (tests/view-check.sh)
ifeq ($(VIEW_TEST_ID),)
	@echo "SKIP view: no CPU step written yet to make a run"
else
	@bash tests/view-check.sh $(BUILD)/view-check $(VIEW_TOOL) $(VIEW_TEST_ID) $(call BIN,$(VIEW_TEST_ID))
endif
