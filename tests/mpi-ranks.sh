#!/usr/bin/env bash
# mpi-ranks.sh PROGRAM: the MPI tests of make test (no GPU needed). PROGRAM is tests/mpi_exchange.c built
# with OpenMPI: the exchange of step11_mpi under mpirun -np 1, 2 and 3 against one process's result,
# then a rank that fails (nb_die -> MPI_Abort) and a rank killed with SIGKILL: mpirun must end
# non-zero within seconds, never hang. One PASS/FAIL line per check; exit status 0 only if all passed.
set -u
prog=${1:?usage: tests/mpi-ranks.sh PROGRAM}
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP mpi: mpirun not found (bash common/deps.sh mpi installs it: apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
log=$(dirname "$prog")/mpi-logs
mkdir -p "$log"
# As root mpirun wants --allow-run-as-root; more ranks than cores want --oversubscribe.
mpirun_for() {
    local np=$1
    printf 'mpirun -np %s' "$np"
    [ "$(id -u)" = 0 ] && printf ' --allow-run-as-root'
    [ "$(nproc)" -lt "$np" ] && printf ' --oversubscribe'
}
failed=0
say() { echo "$1 mpi: $2"; [ "$1" = PASS ] || failed=1; }

for np in 1 2 3; do
    if timeout 300 $(mpirun_for $np) "$prog" check >"$log/check-$np.log" 2>&1 &&
        ! grep -q '^not ok' "$log/check-$np.log" && [ "$(grep -c '^ok' "$log/check-$np.log")" -ge 26 ]; then
        say PASS "ring and allgather on $np rank(s) agree with one process ($(grep -c '^ok' "$log/check-$np.log") checks)"
    else
        say FAIL "ring and allgather on $np rank(s): $(grep -m1 '^not ok' "$log/check-$np.log" || tail -n 1 "$log/check-$np.log") ($log/check-$np.log)"
    fi
done

start=$SECONDS
timeout 60 $(mpirun_for 3) "$prog" fail 1 >"$log/fail.log" 2>&1
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q 'rank 1 fails on purpose' "$log/fail.log"; then
    say PASS "a rank that fails ends the job: exit status $rc after $((SECONDS - start)) s"
else
    say FAIL "a rank that fails: exit status $rc (124: hung) ($log/fail.log)"
fi

# Kill rank 1 with SIGKILL mid-run: mpirun must notice and end every rank.
rm -f "$log/kill.log" # a pid left from an earlier run would be read before mpirun starts
$(mpirun_for 2) "$prog" spin >"$log/kill.log" 2>&1 &
job=$!
pid=
for _ in $(seq 100); do
    pid=$(sed -n 's/^rank 1 pid \([0-9]*\)$/\1/p' "$log/kill.log" 2>/dev/null)
    [ -n "$pid" ] && break
    sleep 0.2
done
if [ -z "$pid" ]; then
    kill "$job" 2>/dev/null
    say FAIL "rank 1 never started spinning ($log/kill.log)"
else
    sleep 1
    kill -9 "$pid"
    start=$SECONDS
    for _ in $(seq 150); do kill -0 "$job" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$job" 2>/dev/null; then
        kill "$job" 2>/dev/null
        say FAIL "mpirun still running 30 s after rank 1 was killed ($log/kill.log)"
    else
        wait "$job"
        rc=$?
        if [ "$rc" != 0 ]; then
            say PASS "a rank killed with SIGKILL ends the job: exit status $rc after $((SECONDS - start)) s"
        else
            say FAIL "a rank killed with SIGKILL: mpirun exited 0 ($log/kill.log)"
        fi
    fi
fi
exit $failed
