# grading/slurm.mk: the lab under Slurm (grading/SLURM.md), included by the top-level Makefile.
#   make test-slurm                                    a real one-node Slurm here (root), the checks, torn down
#   make grade-class CLASS_RUNNER=slurm SUBMISSIONS=DIR OUT=DIR [CLASS_PER_TASK=4] [CLASS_MAX_RUNNING=0]
# make grade's own Slurm route is grading/slurm-grade.sh, called from grading/grading.mk.

.PHONY: test-slurm
test-slurm: $(GRADER)  ## [instructors] bring up a one-node Slurm (root; apt-get slurm-wlm munge), grade through it, tear it down
	@bash tests/slurm/test-slurm.sh '$(BUILD)'

# grade-class's Slurm runner; its local runner and the per-student grade are grading/class/ (instructors only).
ifeq ($(CLASS_RUNNER),slurm)
ifneq ($(wildcard grading/class/slurm-array.sh),)
export CLASS_STEPS CLASS_TIMEOUT CLASS_PER_TASK CLASS_MAX_RUNNING
.PHONY: grade-class
grade-class: $(GRADER)
	@test -n '$(SUBMISSIONS)' && test -n '$(OUT)' || \
	  { echo "usage: make grade-class CLASS_RUNNER=slurm SUBMISSIONS=DIR OUT=DIR (grading/SLURM.md)" >&2; exit 2; }
	@bash grading/class/slurm-array.sh '$(SUBMISSIONS)' '$(OUT)'
endif
endif
