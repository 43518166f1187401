#!/usr/bin/env bash
# A real single-node Slurm cluster under a folder of its own, for the tests, the bench and trying the Slurm launcher:
# munged, slurmctld and slurmd (from apt's munge and slurm-wlm) with their config, keys, sockets, state and logs
# all below DIR, on ports of their own; nothing system-wide is changed.
#
#   scripts/slurm-cluster.sh start DIR   starts the daemons, waits for the node to be idle, prints SLURM_CONF=...
#   scripts/slurm-cluster.sh stop DIR    cancels every job of the cluster, stops the daemons, waits until they exit
#
# Needs root (the daemons run as root: SlurmUser=root). Clients find the cluster through SLURM_CONF=DIR/slurm.conf.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
action=$1
dir=$(realpath -m "$2")

pid_of() { [[ -s "$dir/$1.pid" ]] && cat "$dir/$1.pid"; }
alive() { local pid; pid=$(pid_of "$1") && kill -0 "$pid" 2>/dev/null; }

stop() {
    export SLURM_CONF="$dir/slurm.conf"
    if alive slurmctld; then
        scancel --full --quiet "--partition=driftfix" 2>/dev/null || true
        # Jobs end (their processes signalled by slurmd) before the daemons go.
        for _ in $(seq 1 50); do
            [[ -z "$(squeue --noheader --partition=driftfix 2>/dev/null)" ]] && break
            sleep 0.2
        done
    fi
    for daemon in slurmd slurmctld munged; do
        local pid
        if pid=$(pid_of "$daemon") && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$dir/$daemon.pid"
    done
}

start() {
    [[ $(id -u) -eq 0 ]] || { echo "$0: the daemons run as root; run this as root" >&2; exit 1; }
    for tool in munged mungekey slurmctld slurmd sbatch; do
        command -v "$tool" >/dev/null || { echo "$0: $tool not found (apt install munge slurm-wlm)" >&2; exit 1; }
    done
    mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool"
    chmod 0700 "$dir/munge"
    [[ -s "$dir/munge/munge.key" ]] || mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
    chmod 0600 "$dir/munge/munge.key"
    local node cpus base
    node=$(hostname -s)
    cpus=$(nproc)
    # Ports of its own, derived from the folder so that two clusters (two test runs) do not meet.
    base=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000))
    cat >"$dir/slurm.conf" <<EOF
# A single-node test cluster made by scripts/slurm-cluster.sh; everything below $dir.
ClusterName=driftfix
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# Quick to place what is queued (a test cluster; real ones schedule less often).
SchedulerParameters=sched_interval=1,bf_interval=1
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
# Ended jobs stay visible (squeue --states=all) for a while, then go.
MinJobAge=120
KillWait=5
SlurmdTimeout=30
InactiveLimit=0
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=driftfix Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
    stop  # leftovers of an earlier start in the same folder
    munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed"
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    for _ in $(seq 1 150); do
        if sinfo --noheader --nodes="$node" --format=%t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
            echo "SLURM_CONF=$SLURM_CONF"
            return 0
        fi
        sleep 0.2
    done
    echo "$0: the node did not come up within 30 s; see $dir/slurmctld.log and $dir/slurmd.log" >&2
    tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    stop
    exit 1
}

case "$action" in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
