# todo.awk: is a step written yet? The one rule, used by make test (tests/tests.mk), make grade
# (grading/grade.c) and the bad-input checks (tests/hardening/run.sh):
#
#     awk -f grading/todo.awk stepNN_name/nbody.c
#
# A step is not written yet while its source holds a stub's TODO line: a string "TODO: ..." outside
# the solution regions (grading/HANDOUT.md: in the lab's own sources the stubs are comments inside
# /* BEGIN SOLUTION */ ... END SOLUTION */; in a handout they are the code). Prints that message and
# exits 0; exits 1 when there is none (the step is written, or being written without its TODO line).
/^[ \t]*\/\* BEGIN SOLUTION \*\/[ \t]*$/ { region = 1; next }
/^[ \t]*(\/\* )?END SOLUTION \*\/[ \t]*$/ { region = 0; next }
!region && match($0, /"TODO: [^"]*"/) { print substr($0, RSTART + 1, RLENGTH - 2); found = 1; exit }
END { exit !found }
