#!/usr/bin/env bash
# A real Slurm cluster under a folder of its own, for the tests, the bench and trying the Slurm launcher:
# munged, slurmctld and slurmd (from apt's munge and slurm-wlm) with their config, keys, sockets, state and logs
# all below DIR, on ports of their own.
#
#   scripts/slurm-cluster.sh start DIR [--nodes N [--view SRC=DST]... [--hide PATH]...]
#   scripts/slurm-cluster.sh stop DIR
#   scripts/slurm-cluster.sh fail DIR nI
#   scripts/slurm-cluster.sh revive DIR nI
#
# start (default): one node, the host itself; nothing system-wide is changed. Waits for the node to be idle and
#   prints SLURM_CONF=DIR/slurm.conf.
# start --nodes N: N nodes n1..nN, each a machine of its own as far as the network and its mounts go: its own
#   network namespace (NETNS, address .2, .3, ... of a private /24 derived from DIR) joined by a veth pair to a
#   bridge on the host (the host's side is .1: slurmctld and munged run on the host), its own mount namespace and
#   hostname (nI). Waits until every node is idle and prints
#       SLURM_CONF=DIR/slurm.conf
#       NODE nI ADDRESS NETNS          (one line per node)
#       CONTROLLER ADDRESS             (the host's bridge address: what a node's processes connect to)
#   --view SRC=DST  bind-mounts SRC at DST in every node's mount namespace (DST relative: below DIR; made if
#                   missing, and removed again by stop if it is still empty). Repeatable.
#   --hide PATH     mounts an empty tmpfs over PATH in every node's mount namespace (after the views), so a node
#                   reaches those files only through a view. Repeatable. Not DIR or above it, nor above a DST.
#   Jobs inherit their slurmd's namespaces. No name is looked up anywhere (addresses in slurm.conf), so nothing
#   outside DIR changes but the bridge, veths, namespaces, fail's routes (and view mount points if missing).
# stop: cancels every job of the cluster, stops the daemons and every process in the nodes' namespaces, removes the
#   namespaces, veths, bridge and fail's routes; idempotent, and fine after a partial start or a fail. What start
#   and fail made is recorded in DIR (bridge, nodes, unreachable, made), so stop removes that and nothing else.
# fail nI: node nI dies as a machine losing power: its veth goes down and slurmd, slurmstepd and the job processes
#   in its namespace are killed (SIGKILL) at once; the host's route to it answers "no route to host". Slurm shows
#   it not responding (sinfo: a *) at its next ping, within about 4 s, and down 10 to 14 s after it died
#   (SlurmdTimeout=10); then it requeues the node's batch jobs unless they were submitted with --no-requeue.
# revive nI: a failed node boots again: its route and veth back, a fresh slurmd (and mount namespace with the
#   views); it is usable again once registered (ReturnToService=2); waits until it is.
#
# Needs root (the daemons run as root: SlurmUser=root). Clients find the cluster through SLURM_CONF=DIR/slurm.conf.
set -euo pipefail

usage() {
    echo "usage: $0 start DIR [--nodes N [--view SRC=DST]... [--hide PATH]...] | stop DIR | fail DIR nI | revive DIR nI" >&2
    exit 2
}
[[ $# -ge 2 ]] || usage
action=$1
dir=$(realpath -m "$2")
shift 2
self=$(realpath "${BASH_SOURCE[0]}")

nodes=0
views=()  # SRC DST SRC DST ...
hides=()
node=""
case "$action" in
    start)
        while [[ $# -gt 0 ]]; do
            case "$1" in
                --nodes) [[ $# -ge 2 ]] || usage; nodes=$2; shift 2 ;;
                --nodes=*) nodes=${1#--nodes=}; shift ;;
                --view) [[ $# -ge 2 ]] || usage; views+=("$2"); shift 2 ;;
                --view=*) views+=("${1#--view=}"); shift ;;
                --hide) [[ $# -ge 2 ]] || usage; hides+=("$2"); shift 2 ;;
                --hide=*) hides+=("${1#--hide=}"); shift ;;
                *) usage ;;
            esac
        done
        # A /24 holds the host and 253 nodes.
        if ! [[ "$nodes" =~ ^[0-9]+$ ]] || ((10#$nodes > 253)); then echo "$0: --nodes takes 1 to 253" >&2; exit 2; fi
        nodes=$((10#$nodes))
        if ((nodes == 0)) && ((${#views[@]} + ${#hides[@]} > 0)); then
            echo "$0: --view and --hide need --nodes (the single host node has no namespace of its own)" >&2
            exit 2
        fi
        ;;
    stop) [[ $# -eq 0 ]] || usage ;;
    fail | revive | _node) [[ $# -eq 1 ]] || usage; node=$1 ;;
    *) usage ;;
esac

# Names and addresses of the multi-node mode, derived from the folder so that two clusters do not meet.
# Interface names are at most 15 characters; 10.201.* is scripts/multihost.sh's, so the /24 lies in 10.202-254.
hash=$(printf '%s' "$dir" | md5sum | cut -c1-9)
bridge="dfb${hash:0:5}"
subnet="10.$((202 + 16#${hash:5:2} % 53)).$((16#${hash:7:2}))"
controller="$subnet.1"
netns_of() { echo "dfx${hash:0:5}-$1"; }
veth_of() { echo "dfv${hash:0:5}$1"; }  # the host end; the node's end is eth0 in its namespace

pid_of() { [[ -s "$dir/$1.pid" ]] && cat "$dir/$1.pid"; }
alive() { local pid; pid=$(pid_of "$1") && kill -0 "$pid" 2>/dev/null; }

# Every process in a node's network namespace: its slurmd, slurmstepd and the jobs under them (they inherit it).
netns_pids() { ip netns pids "$1" 2>/dev/null || true; }

kill_netns() {  # NETNS SIGNAL: signals every process in the namespace until none is left (processes may fork)
    local ns=$1 signal=$2 pids
    for _ in $(seq 1 50); do
        pids=$(netns_pids "$ns")
        [[ -z "$pids" ]] && return 0
        # shellcheck disable=SC2086  # one pid a word
        kill "-$signal" $pids 2>/dev/null || true
        sleep 0.1
    done
}

# The node records of a multi-node start (DIR/nodes: "nI ADDRESS NETNS VETH" a line), written before each thing
# is made so that stop removes exactly what was made, nothing it guessed.
node_record() {  # nI: prints "ADDRESS NETNS VETH"
    local name address ns veth
    [[ -s "$dir/nodes" ]] || { echo "$0: $dir has no multi-node cluster (start it with --nodes N)" >&2; exit 1; }
    while read -r name address ns veth; do
        [[ "$name" == "$1" ]] && { echo "$address $ns $veth"; return 0; }
    done <"$dir/nodes"
    echo "$0: no node $1 in $dir/nodes" >&2
    exit 1
}

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
    local name address ns veth
    if [[ -s "$dir/nodes" ]]; then
        # slurmd, and whatever a job left, in each node's namespace: asked to go (all nodes at once), then killed.
        local left pids
        while read -r name address ns veth; do
            pids=$(netns_pids "$ns")
            # shellcheck disable=SC2086  # one pid a word
            [[ -z "$pids" ]] || kill -TERM $pids 2>/dev/null || true
        done <"$dir/nodes"
        for _ in $(seq 1 50); do
            left=""
            while read -r name address ns veth; do left+=$(netns_pids "$ns"); done <"$dir/nodes"
            [[ -z "$left" ]] && break
            sleep 0.1
        done
        while read -r name address ns veth; do kill_netns "$ns" KILL; done <"$dir/nodes"
    fi
    for daemon in slurmd slurmctld munged; do
        local pid
        if pid=$(pid_of "$daemon") && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
        fi
        rm -f "$dir/$daemon.pid"
    done
    if [[ -s "$dir/nodes" ]]; then
        # Deleting a namespace deletes its eth0 and so the veth pair; the host end goes too if it was left alone.
        while read -r name address ns veth; do
            ip netns del "$ns" 2>/dev/null || true
            ip link del "$veth" 2>/dev/null || true
            rm -f "$dir/slurmd-$name.pid"
        done <"$dir/nodes"
    fi
    if [[ -s "$dir/unreachable" ]]; then
        while read -r address; do ip route del unreachable "$address/32" 2>/dev/null || true; done <"$dir/unreachable"
    fi
    rm -f "$dir/nodes" "$dir/views" "$dir/hides" "$dir/unreachable"
    if [[ -s "$dir/bridge" ]]; then
        ip link del "$(cat "$dir/bridge")" 2>/dev/null || true
        rm -f "$dir/bridge"
    fi
    # The view mount points start made (deepest first), if nothing was put in them since.
    if [[ -s "$dir/made" ]]; then
        local made=() path
        mapfile -d '' made <"$dir/made"
        for path in "${made[@]}"; do
            if [[ -d "$path" && ! -L "$path" ]]; then rmdir "$path" 2>/dev/null || true
            elif [[ -f "$path" && ! -s "$path" ]]; then rm -f "$path"; fi
        done
    fi
    rm -f "$dir/made"
    return 0
}

make_path() {  # PATH dir|file: makes it and any missing parent, recorded (deepest first) for stop
    local path=$1 missing=()
    while [[ ! -e "$path" && ! -L "$path" ]]; do missing+=("$path"); path=$(dirname "$path"); done
    ((${#missing[@]} > 0)) || return 0
    printf '%s\0' "${missing[@]}" >>"$dir/made"
    if [[ $2 == dir ]]; then mkdir -p "$1"; else mkdir -p "$(dirname "$1")"; : >"$1"; fi
}

common_conf() {  # the lines both modes share
    cat <<EOF
ClusterName=driftfix
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/ctld
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/slurmctld.log
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
# A node that was down is usable again as soon as its slurmd registers.
ReturnToService=2
# Ended jobs stay visible (squeue --states=all) for a while, then go.
MinJobAge=120
KillWait=5
InactiveLimit=0
EOF
}

wait_idle() {  # COUNT NODELIST: true once COUNT nodes of NODELIST are idle (or running jobs), within 60 s
    local up
    for _ in $(seq 1 300); do
        up=$(sinfo --noheader --Node --nodes="$2" --format='%N %t' 2>/dev/null | grep -cE ' (idle|mix|alloc)$' || true)
        ((up >= $1)) && return 0
        sleep 0.2
    done
    return 1
}

# Inside a node's fresh network, mount and UTS namespaces (see start_node): the views, then the hides over the
# paths they show, the node's hostname, and its slurmd (which daemonizes; its jobs inherit all three namespaces).
node_main() {
    local i
    if [[ -s "$dir/views" ]]; then
        mapfile -d '' views <"$dir/views"
        for ((i = 0; i < ${#views[@]}; i += 2)); do mount --bind "${views[i]}" "${views[i + 1]}"; done
    fi
    if [[ -s "$dir/hides" ]]; then
        mapfile -d '' hides <"$dir/hides"
        for i in "${hides[@]}"; do mount -t tmpfs -o size=1m,mode=0755 driftfix-hide "$i"; done
    fi
    hostname "$node"
    exec slurmd -f "$dir/slurm.conf" -N "$node"
}

start_node() {  # nI NETNS
    # nsenter rather than `ip netns exec`, which mounts a fresh /sys without /sys/fs/cgroup, where slurmd looks
    # (its cgroup plugin fails to start without it). Private propagation: the node's mounts stay its own.
    nsenter --net="/var/run/netns/$2" unshare --mount --uts --propagation private "$BASH" "$self" _node "$dir" "$1" </dev/null
}

check_views() {  # before anything is started: the views and hides make sense
    local i path
    for path in "${hides[@]}"; do
        [[ -d "$path" ]] || { echo "$0: --hide $path: not a folder" >&2; exit 2; }
        if [[ "$dir/" == "$path"/* || "$path" == / ]]; then
            echo "$0: --hide $path would hide the cluster's own folder $dir" >&2
            exit 2
        fi
    done
    for ((i = 0; i < ${#views[@]}; i += 2)); do
        [[ -e "${views[i]}" ]] || { echo "$0: --view ${views[i]}=...: no such file or folder" >&2; exit 2; }
        for path in "${hides[@]}"; do
            if [[ "${views[i + 1]}/" == "$path"/* ]]; then
                echo "$0: --view ...=${views[i + 1]} lies under --hide $path, which would cover it" >&2
                exit 2
            fi
        done
    done
}

start_nodes() {  # the multi-node start, after munged
    local i name address ns veth
    # Refused rather than reused: whatever holds these names or addresses is not this cluster's (stop removed ours).
    if ip link show "$bridge" >/dev/null 2>&1; then
        echo "$0: a network interface named $bridge (this folder's bridge name) exists already; not touching it" >&2
        return 1
    fi
    if [[ -n "$(ip -4 -o addr show to "$subnet.0/24")$(ip -4 route show root "$subnet.0/24")" ]]; then
        echo "$0: $subnet.0/24 (this folder's subnet) is in use here already:" >&2
        ip -4 -o addr show to "$subnet.0/24" >&2
        ip -4 route show root "$subnet.0/24" >&2
        return 1
    fi
    for ((i = 1; i <= nodes; i++)); do
        if ip netns list | grep -qE "^$(netns_of "n$i")( |$)" || ip link show "$(veth_of "n$i")" >/dev/null 2>&1; then
            echo "$0: network namespace $(netns_of "n$i") or interface $(veth_of "n$i") exists already; not touching it" >&2
            return 1
        fi
    done

    rm -f "$dir/views" "$dir/hides"
    ((${#views[@]} == 0)) || printf '%s\0' "${views[@]}" >"$dir/views"
    ((${#hides[@]} == 0)) || printf '%s\0' "${hides[@]}" >"$dir/hides"
    for ((i = 0; i < ${#views[@]}; i += 2)); do
        if [[ -d "${views[i]}" ]]; then make_path "${views[i + 1]}" dir; else make_path "${views[i + 1]}" file; fi
    done

    echo "$bridge" >"$dir/bridge"
    # No spanning tree and no forwarding delay: ports forward as soon as they are up.
    ip link add "$bridge" type bridge stp_state 0 forward_delay 0
    ip addr add "$controller/24" dev "$bridge"
    ip link set "$bridge" up
    for ((i = 1; i <= nodes; i++)); do
        name="n$i" address="$subnet.$((1 + i))" ns=$(netns_of "n$i") veth=$(veth_of "n$i")
        echo "$name $address $ns $veth" >>"$dir/nodes"
        mkdir -p "$dir/spool/$name"
        ip netns add "$ns"
        ip link add "$veth" type veth peer name eth0 netns "$ns"
        ip link set "$veth" master "$bridge" up
        ip -n "$ns" addr add "$address/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
    done

    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF"
    while read -r name address ns veth; do start_node "$name" "$ns"; done <"$dir/nodes"
    if ! wait_idle "$nodes" "n[1-$nodes]"; then
        echo "$0: not every node came up within 60 s; see $dir/slurmctld.log and $dir/slurmd-n*.log" >&2
        sinfo --Node >&2 || true
        tail -5 "$dir/slurmctld.log" "$dir"/slurmd-n*.log >&2 || true
        return 1
    fi
    echo "SLURM_CONF=$SLURM_CONF"
    while read -r name address ns veth; do echo "NODE $name $address $ns"; done <"$dir/nodes"
    echo "CONTROLLER $controller"
}

stop_unless_started() {
    local status=$?
    trap - EXIT
    ((status == 0)) || stop
    exit "$status"
}

start() {
    [[ $(id -u) -eq 0 ]] || { echo "$0: the daemons run as root; run this as root" >&2; exit 1; }
    for tool in munged mungekey slurmctld slurmd sbatch; do
        command -v "$tool" >/dev/null || { echo "$0: $tool not found (apt install munge slurm-wlm)" >&2; exit 1; }
    done
    if ((nodes > 0)); then
        for tool in ip nsenter unshare; do
            command -v "$tool" >/dev/null || { echo "$0: $tool not found (apt install iproute2 util-linux)" >&2; exit 1; }
        done
    fi
    # Paths as given on the command line: relative SRC and PATH from here, a relative DST below DIR.
    local i
    for ((i = 0; i < ${#views[@]}; i++)); do
        local spec=${views[i]}
        [[ "$spec" == ?*=?* ]] || { echo "$0: --view takes SRC=DST, not $spec" >&2; exit 2; }
        local src=${spec%%=*} dst=${spec#*=}
        [[ "$dst" == /* ]] || dst="$dir/$dst"
        views[i]=$(realpath -m "$src")$'\n'$(realpath -m "$dst")
    done
    local pairs=()
    for i in "${views[@]}"; do pairs+=("${i%%$'\n'*}" "${i#*$'\n'}"); done
    views=("${pairs[@]}")
    for ((i = 0; i < ${#hides[@]}; i++)); do hides[i]=$(realpath -m "${hides[i]}"); done
    check_views

    mkdir -p "$dir"
    stop  # leftovers of an earlier start in the same folder
    mkdir -p "$dir/munge" "$dir/ctld" "$dir/spool"
    chmod 0700 "$dir/munge"
    [[ -s "$dir/munge/munge.key" ]] || mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
    chmod 0600 "$dir/munge/munge.key"
    local host cpus
    host=$(hostname -s)
    cpus=$(nproc)
    # Ports of its own, derived from the folder so that two clusters (two test runs) do not meet.
    base=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000))
    if ((nodes == 0)); then
        {
            echo "# A single-node test cluster made by scripts/slurm-cluster.sh; everything below $dir."
            echo "SlurmctldHost=$host"
            common_conf
            cat <<EOF
SlurmdSpoolDir=$dir/spool
SlurmdPidFile=$dir/slurmd.pid
SlurmdLogFile=$dir/slurmd.log
SlurmdTimeout=30
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=driftfix Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
        } >"$dir/slurm.conf"
    else
        {
            echo "# A $nodes-node test cluster made by scripts/slurm-cluster.sh; everything below $dir, nodes in namespaces."
            # The controller's address on the bridge: clients and nodes connect to it, no name is looked up.
            echo "SlurmctldHost=$host($controller)"
            common_conf
            # %n is the node's name (slurmd -N): one spool, pid file and log per node from one config.
            cat <<EOF
SlurmdSpoolDir=$dir/spool/%n
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmdLogFile=$dir/slurmd-%n.log
# A lost node shows quickly: slurmctld pings a node every SlurmdTimeout/3 and sets it down once it has not
# answered for SlurmdTimeout (see fail for why its pings fail at once).
SlurmdTimeout=10
EOF
            for ((i = 1; i <= nodes; i++)); do
                echo "NodeName=n$i NodeAddr=$subnet.$((1 + i)) NodeHostname=n$i CPUs=$cpus State=UNKNOWN"
            done
            echo "PartitionName=driftfix Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4"
        } >"$dir/slurm.conf"
    fi
    # Whatever fails from here on takes down what was started, so a failed start leaves nothing behind.
    trap stop_unless_started EXIT
    munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed"
    export SLURM_CONF="$dir/slurm.conf"
    if ((nodes > 0)); then
        start_nodes
        return 0
    fi
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    for _ in $(seq 1 150); do
        if sinfo --noheader --nodes="$host" --format=%t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
            echo "SLURM_CONF=$SLURM_CONF"
            return 0
        fi
        sleep 0.2
    done
    echo "$0: the node did not come up within 30 s; see $dir/slurmctld.log and $dir/slurmd.log" >&2
    tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    exit 1
}

fail() {
    local record address ns veth
    record=$(node_record "$node")
    read -r address ns veth <<<"$record"
    # The cable first, so nothing more leaves the node, then every process on it at once.
    ip link set "$veth" down
    # The host's route to the node answers "no route to host" at once, as it would once ARP gave up on a dead
    # machine; without it each of slurmctld's pings retries its connection for MessageTimeout (11 s here) and
    # the node is down only about 28 s after it died instead of about 12 s.
    grep -qxF "$address" "$dir/unreachable" 2>/dev/null || echo "$address" >>"$dir/unreachable"
    ip route replace unreachable "$address/32"
    kill_netns "$ns" KILL
    [[ -z "$(netns_pids "$ns")" ]] || { echo "$0: processes left in $ns: $(netns_pids "$ns")" >&2; exit 1; }
}

revive() {
    local record address ns veth
    record=$(node_record "$node")
    read -r address ns veth <<<"$record"
    [[ -z "$(netns_pids "$ns")" ]] || { echo "$0: $node is still running (fail it first)" >&2; exit 1; }
    export SLURM_CONF="$dir/slurm.conf"
    ip route del unreachable "$address/32" 2>/dev/null || true
    ip link set "$veth" up
    start_node "$node" "$ns"
    wait_idle 1 "$node" || { echo "$0: $node did not come back within 60 s; see $dir/slurmd-$node.log" >&2; exit 1; }
}

case "$action" in
    start) start ;;
    stop) stop ;;
    fail) fail ;;
    revive) revive ;;
    _node) node_main ;;  # internal: start_node runs it inside the node's namespaces
esac
