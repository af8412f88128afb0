# shellcheck shell=bash disable=SC2034 # sourced: SLURM_WHY is read by the caller
# tests/slurm/cluster.sh: a throw-away single-node Slurm (munged, slurmctld, slurmd) in a temp folder.
# Sourced by tests/slurm/test-slurm.sh. slurm_up DIR brings it up (root only) and exports SLURM_CONF,
# so sinfo/sbatch/squeue/srun talk to it; slurm_down stops every daemon it started (by its pid file)
# and says whether anything is left. slurm_logs prints the daemons' logs (on a failure).
# Every wait is bounded: SLURM_UP_TIMEOUT seconds (default 60) for the node to show idle.

# A TCP port nobody listens on, from a range Slurm's defaults (6817-6819) stay out of.
slurm_free_port() {
    local p
    for p in $(seq "$1" $(($1 + 200))); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
    done
    return 1
}

slurm_logs() {
    local f
    for f in "$SLURM_DIR"/log/*.log; do
        [ -f "$f" ] || continue
        echo "---- $f (last 40 lines)"
        tail -n 40 "$f"
    done
}

# slurm_pids: the pids in the daemons' pid files that still run.
slurm_pids() {
    local f p
    for f in "$SLURM_DIR"/run/*.pid; do
        [ -f "$f" ] || continue
        p=$(cat "$f" 2>/dev/null)
        [[ $p =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null && echo "$p"
    done
}

slurm_down() {
    [ -n "${SLURM_DIR:-}" ] && [ -d "$SLURM_DIR/run" ] || return 0
    local p
    # Jobs first (bounded), so their slurmstepd and processes end while slurmd still runs.
    if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_DIR/run/slurmctld.pid" ]; then
        timeout 10 scancel --quiet --user="$(id -un)" 2>/dev/null
        for _ in $(seq 30); do [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
    fi
    # slurmd, then slurmctld, then munged: each by its own pid, TERM, then KILL after 10 s.
    for p in slurmd slurmctld munged; do
        local f=$SLURM_DIR/run/$p.pid pid
        [ -f "$f" ] || continue
        pid=$(cat "$f" 2>/dev/null)
        [[ $pid =~ ^[0-9]+$ ]] || continue
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    done
    return 0
}

# slurm_up DIR: 0 when the node is idle; 1 with the reason in SLURM_WHY (and the logs printed).
slurm_up() {
    SLURM_DIR=$1
    SLURM_WHY=
    mkdir -p "$SLURM_DIR"/{etc,run,log,state,spool,munge}
    # munged wants its socket's folder searchable by all; the key itself is read by its owner only.
    chmod 755 "$SLURM_DIR/munge"
    local cpus mem ctl_port d_port
    cpus=$(nproc)
    # RealMemory in MiB, a little under what the machine has, so slurmd never reports less than the conf.
    mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
    ctl_port=$(slurm_free_port 16817) && d_port=$(slurm_free_port $((ctl_port + 1))) ||
        { SLURM_WHY="no free TCP port for slurmctld/slurmd"; return 1; }

    # A munge key of our own: 1024 random bytes, readable by its owner only (munged checks).
    head -c 1024 /dev/urandom > "$SLURM_DIR/munge/munge.key"
    chmod 400 "$SLURM_DIR/munge/munge.key"
    local sock=$SLURM_DIR/munge/munge.socket
    munged --force --key-file="$SLURM_DIR/munge/munge.key" --socket="$sock" \
        --pid-file="$SLURM_DIR/run/munged.pid" --log-file="$SLURM_DIR/log/munged.log" \
        --seed-file="$SLURM_DIR/munge/munged.seed" ||
        { SLURM_WHY="munged did not start"; slurm_logs; return 1; }

    cat > "$SLURM_DIR/etc/slurm.conf" <<CONF
# Written by tests/slurm/cluster.sh: one node, one partition, no accounting; removed after the test.
ClusterName=labtest
SlurmctldHost=localhost
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/slurmd-%n
SlurmctldPidFile=$SLURM_DIR/run/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/run/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=lab Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$SLURM_DIR/etc/slurm.conf
    # -i: start with no saved state (a fresh StateSaveLocation anyway).
    slurmctld -f "$SLURM_CONF" -i ||
        { SLURM_WHY="slurmctld did not start"; slurm_logs; return 1; }
    slurmd -f "$SLURM_CONF" -N localhost ||
        { SLURM_WHY="slurmd did not start"; slurm_logs; return 1; }

    local limit=${SLURM_UP_TIMEOUT:-60} start=$SECONDS state=
    while [ $((SECONDS - start)) -lt "$limit" ]; do
        state=$(timeout 5 sinfo -h -n localhost -o '%T' 2>/dev/null | head -n1)
        [ "$state" = idle ] && return 0
        sleep 1
    done
    SLURM_WHY="the node was not idle after $limit s (sinfo says '${state:-nothing}')"
    slurm_logs
    return 1
}
