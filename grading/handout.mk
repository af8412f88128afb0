# grading/handout.mk: the student version of the lab, generated from the solutions (grading/HANDOUT.md).
# Included by the top-level Makefile.

HANDOUT_DIR ?= $(BUILD)/handout

.PHONY: handout test-handout
handout:                                             ## write the student handout (solutions stripped) to build/handout
	@bash grading/handout.sh $(HANDOUT_DIR)

test-handout:                                        ## check the handout: it builds, stripped steps say TODO, filled in they pass
	@bash grading/handout-test.sh $(BUILD)/handout-test
