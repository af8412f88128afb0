# grading/handout.mk: the student version of the lab, generated from the solutions (grading/HANDOUT.md).
# Included by the top-level Makefile.

# Where the student keeps it: a folder outside the lab (make clean deletes build/).
DEST ?=

.PHONY: handout test-handout
handout:                                             ## [lab] write your copy, solutions stripped, outside the lab: make handout DEST=../nbody-lab
	@test -n '$(DEST)' || { echo "usage: make handout DEST=../nbody-lab  (a new folder outside the lab, where you keep your copy)"; exit 2; }
	@bash grading/handout.sh '$(DEST)'

test-handout:                                        ## [instructors] check the handout: it builds, stripped steps say TODO, filled in they pass
	@bash grading/handout-test.sh $(BUILD)/handout-test
