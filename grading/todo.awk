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
# A message split over lines as C's adjacent strings ("TODO: ... " then "..." on the next line) is
# joined: while nothing but blanks follows a string on its line, a next line that opens with a string
# continues it.
!region && match($0, /"TODO: [^"]*"/) {
    msg = substr($0, RSTART + 1, RLENGTH - 2)
    rest = substr($0, RSTART + RLENGTH)
    while (rest ~ /^[ \t]*$/ && (getline line) > 0 && match(line, /^[ \t]*"[^"]*"/)) {
        piece = substr(line, RSTART, RLENGTH)
        sub(/^[ \t]*"/, "", piece)
        msg = msg substr(piece, 1, length(piece) - 1)
        rest = substr(line, RSTART + RLENGTH)
    }
    print msg; found = 1; exit
}
END { exit !found }
