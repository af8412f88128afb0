# INSTRUCTORS ONLY: make grade-class and test-class (grading/CLASS.md); grading/handout.sh keeps it out of the handout.
# grading/class/class.mk, included by the top-level Makefile (-include: the students' copy has no such file).

SUBMISSIONS ?=
OUT ?=
# The variables that reach grade-one.sh: the class's own, and make grade's knobs where they were given.
CLASS_VARS := CLASS_STEPS CLASS_JOBS CLASS_TIMEOUT CLASS_ISOLATE CLASS_KEEP GRADE_N GRADE_S GRADE_STEPS \
  GRADE_CPU_STEPS GRADE_REPEAT GRADE_CHECK_N GRADE_JOBS GRADE_TIMEOUT
class_env = $(foreach v,$(CLASS_VARS),$(if $(filter command line environment,$(origin $(v))),$(v)='$($(v))')) \
  CLASS_PSEUDONYMS='$(PSEUDONYMS)'

.PHONY: grade-class test-class gradescope prairielearn test-platforms
ifneq ($(CLASS_RUNNER),slurm) # the Slurm runner's grade-class is grading/slurm.mk's
grade-class:  ## [instructors] grade a class: SUBMISSIONS=DIR (a folder per student) OUT=DIR [CLASS_STEPS="00 01"] [PSEUDONYMS=1] [CLASS_JOBS=1] [CLASS_RUNNER=slurm]
	@$(class_env) bash grading/class/grade-class.sh '$(SUBMISSIONS)' '$(OUT)'
endif

test-class:   ## [instructors] grade-class on 5 synthetic submissions of steps 00 and 01; every output checked, the page in chromium
	@bash grading/class/test-class.sh '$(BUILD)/class-test'

# The platforms' bundles (grading/GRADESCOPE.md, grading/PRAIRIELEARN.md): the settings reach platform-bundle.sh.
PLATFORM_VARS := CLASS_STEPS CLASS_LAB_COMMIT GRADE_N GRADE_CHECK_N GRADE_TIMEOUT GRADE_S GRADE_REPEAT PLATFORM_TIME_LIMIT \
  CLASS_REMOTE CLASS_REMOTE_KEY CLASS_REMOTE_KNOWN_HOSTS CLASS_REMOTE_PORT CLASS_REMOTE_STEPS
platform_env = $(foreach v,$(PLATFORM_VARS),$(if $(filter command line environment,$(origin $(v))),$(v)='$($(v))'))
gradescope:   ## [instructors] a Gradescope autograder zip: DEST=DIR [CLASS_STEPS="00 01"] [GRADE_N=16384] [CLASS_REMOTE=user@gpuhost ...]
	@$(platform_env) bash grading/class/platform-bundle.sh gradescope '$(DEST)'

prairielearn: ## [instructors] a PrairieLearn external grader (image folder) and its question: DEST=DIR [CLASS_STEPS=...]
	@$(platform_env) bash grading/class/platform-bundle.sh prairielearn '$(DEST)'

test-platforms: ## [instructors] both bundles unpacked in a bubblewrap box at /autograder and /grade, graded 4+6 ways; the GPU host over ssh and Slurm
	@bash grading/class/test-platforms.sh '$(BUILD)/platform-test'
