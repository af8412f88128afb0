# report.mk: the instructors' targets (included by the top-level Makefile).
#   make report     measure every sweep on this machine (report/sweeps/measure.sh), then draw everything
#   make figures    draw every figure and rewrite the report's tables from the recorded CSVs (no GPU)
#   make movie      run a two-galaxy collision on the CPU and draw it as an animated GIF
#   make cpu-peer   step01 side by side with report/tools/peer-soa.c on this machine (report/sweeps/cpu-peer.sh)
# Recordings: report/data/cpu (a CPU-only machine: the CPU steps and the physics), data/<machine>-<date>
# (brought back from lent GPU machines), data/gpu (make report on a GPU machine); of each row they
# show, the figures and tables take the latest recording's (report/query/recordings.sh).

REPORT_TOOLS := $(BUILD)/tools/diag $(BUILD)/tools/snap2txt $(BUILD)/tools/kepler $(BUILD)/tools/stagger
# Where `make report` records: a GPU machine's run replaces report/data/gpu, a CPU machine's report/data/cpu.
REPORT_OUT = report/data/$(if $(shell nvidia-smi -L 2>/dev/null | grep '^GPU'),gpu,cpu)
# make report PHASES="ladder block" measures only those (report/sweeps/measure.sh lists them).
PHASES ?=
# make movie MOVIE_N=8192 MOVIE_STEPS=6000 MOVIE_EVERY=30 (defaults in report/plots/movie.sh: 4096, 5000, 25)
MOVIE_N ?=
MOVIE_STEPS ?=
MOVIE_EVERY ?=

# make cpu-peer CPU_PEER_OUT=DIR (default build/cpu-peer) ROUNDS=5 REPEAT=5
CPU_PEER_OUT ?= $(BUILD)/cpu-peer

.PHONY: report figures movie report-tools report-tables cpu-peer test-stagger

$(REPORT_TOOLS): $(BUILD)/tools/%: report/tools/%.c $(LIBNBODY) | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -o $@ $< $(LIBNBODY) $(LDLIBS)

# diag with its pair sums on the GPU, diag's bits (report/tools/pairs_gpu.cu), built where nvcc is: the
# energy of a million bodies in seconds (report/sweeps/blocksteps.sh, BS_DIAG=gpu).
DIAG_GPU := $(if $(HAVE_NVCC),$(BUILD)/tools/diag-gpu)

$(BUILD)/obj/tools/pairs_gpu.o: report/tools/pairs_gpu.cu report/tools/pairs_gpu.h common/device.h $(BUILD)/gen/version.h
	@mkdir -p $(@D)
	$(NVCC) $(LAB_NVCCFLAGS) $(NVCCFLAGS) -c $< -o $@

$(BUILD)/obj/tools/diag-gpu.o: report/tools/diag.c report/tools/pairs_gpu.h | $(BUILD)/.deps-zlib
	@mkdir -p $(@D)
	$(CC) $(LAB_CFLAGS) $(CFLAGS) -DDIAG_GPU -c $< -o $@

$(BUILD)/tools/diag-gpu: $(BUILD)/obj/tools/diag-gpu.o $(BUILD)/obj/tools/pairs_gpu.o $(BUILD)/obj/common/device.o $(LIBNBODY)
	@mkdir -p $(@D)
	$(NVCC) -arch=sm_$(CUDA_ARCH) -o $@ $^ -Xcompiler -fopenmp $(NVCC_LDFLAGS) $(LDLIBS)

report-tools: $(REPORT_TOOLS) $(DIAG_GPU)            ## build the report's C tools (diag, snap2txt, kepler, stagger; diag-gpu where nvcc is)

# stagger on a drawn sphere: its start's energy is the drawn one's, bad input refused (tests/stagger-check.sh).
test-stagger: $(BUILD)/tools/stagger $(BUILD)/tools/diag $(DIAG_GPU) $(TEST_CPU_WRITTEN_BINS)  ## report/tools/stagger sets a drawn sphere half a step back: the energy is the drawn one's; diag-gpu's table is diag's (a GPU)
	@DIAG_GPU='$(DIAG_GPU)' bash tests/stagger-check.sh $(BUILD)/stagger-check $(BUILD)/tools/stagger $(BUILD)/tools/diag $(TEST_CPU_WRITTEN_BINS)

report: $(REPORT_TOOLS)                              ## measure every sweep here into report/data, then draw (GPU machine)
	@out='$(REPORT_OUT)'; echo "report: recording into $$out"; \
	MAKEFLAGS= MAKELEVEL= BUILD='$(BUILD)' bash report/sweeps/measure.sh "$$out" $(PHASES)
	@$(MAKE) --no-print-directory figures

# The grader draws the ladder figure (report/plots/figures.sh): one drawer for make grade and the report.
figures: $(BUILD)/.deps-gnuplot $(GRADER)             ## draw the figures and tables from the recorded CSVs (no GPU)
	@BUILD='$(BUILD)' GRADER='$(GRADER)' bash report/plots/figures.sh

cpu-peer:                                            ## [instructors] step01 side by side with report/tools/peer-soa.c here: build/cpu-peer/cpu-peer.csv
	@MAKEFLAGS= MAKELEVEL= BUILD='$(BUILD)' bash report/sweeps/cpu-peer.sh '$(CPU_PEER_OUT)'

report-tables:                                       ## rewrite only the tables in report/REPORT.md and README.md
	@bash report/tables/tables.sh

movie: $(BUILD)/.deps-gnuplot $(REPORT_TOOLS) $(call BIN,01)  ## animate a two-galaxy collision: report/figures/collision.gif
	@MOVIE_N='$(MOVIE_N)' MOVIE_STEPS='$(MOVIE_STEPS)' MOVIE_EVERY='$(MOVIE_EVERY)' BUILD='$(BUILD)' bash report/plots/movie.sh
