# shellcheck shell=bash
# Network namespaces for the multi-host scripts (multihost.sh, chaos-net.sh): a coordinator namespace joined to each
# worker's namespace by its own veth pair, and workers started in a mount namespace of their own where only their
# path map leads to the files. Sourced, not run. Needs root.

# ns_star TAG SUBNET N...: namespaces TAG-c and TAG-wN, and per worker N a point-to-point link
# 10.SUBNET.N.1 (TAG-cN, in TAG-c: where disruptions are made) <-> 10.SUBNET.N.2 (TAG-wN, in TAG-wN).
# Returns 77 (the skip status) when namespaces cannot be made here.
ns_star() {
    local tag=$1 subnet=$2 n
    shift 2
    ip netns add "$tag-c" 2>/dev/null || return 77
    for n in "$@"; do
        ip netns add "$tag-w$n"
        ip link add "$tag-c$n" type veth peer name "$tag-w$n"
        ip link set "$tag-c$n" netns "$tag-c"
        ip link set "$tag-w$n" netns "$tag-w$n"
        ip -n "$tag-c" addr add "10.$subnet.$n.1/24" dev "$tag-c$n"
        ip -n "$tag-w$n" addr add "10.$subnet.$n.2/24" dev "$tag-w$n"
        ip -n "$tag-c" link set "$tag-c$n" up
        ip -n "$tag-w$n" link set "$tag-w$n" up
        ip -n "$tag-w$n" link set lo up
    done
    ip -n "$tag-c" link set lo up
}

# ns_remove TAG N...: the namespaces of ns_star (their veth ends and qdiscs go with them); quiet where absent.
ns_remove() {
    local tag=$1 n
    shift
    ip netns del "$tag-c" 2>/dev/null || true
    for n in "$@"; do ip netns del "$tag-w$n" 2>/dev/null || true; done
}

# ns_cleanup NAME TAG WORK N...: a namespace script's exit (its EXIT trap): the caller's `pids` sent SIGTERM, then
# SIGKILL half a second later; its `mounts` unmounted; the namespaces of ns_star removed (their veth ends and qdiscs go
# with them); WORK deleted - unless a mount stayed, when WORK is left in place and said (never delete through a view
# of the media that is still mounted).
ns_cleanup() {
    local name=$1 tag=$2 work=$3 pid mount
    shift 3
    # shellcheck disable=SC2154  # the caller's arrays
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 0.5
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for mount in "${mounts[@]}"; do umount "$mount" 2>/dev/null || true; done
    ns_remove "$tag" "$@"
    for mount in "${mounts[@]}"; do
        if mountpoint -q "$mount"; then
            echo "$name: $mount is still mounted; leaving $work in place" >&2
            return 0
        fi
    done
    rm -rf --one-file-system "$work"
}

# ns_await PID SECONDS COMMAND...: waits until COMMAND succeeds, at most SECONDS (in steps of 0.05 s); fails as soon
# as process PID (the coordinator) is gone.
ns_await() {
    local pid=$1 steps=$(($2 * 20))
    shift 2
    for _ in $(seq 1 "$steps"); do
        "$@" && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# ns_temporary OUT PID: a temporary file process PID is writing under OUT (driftfix names them after their writer's
# pid), or nothing. ns_writing OUT PID: whether there is one.
ns_temporary() { find "$1" -name ".*driftfix-*-$2-*.tmp" 2>/dev/null | head -1; }
ns_writing() { [[ -n $(ns_temporary "$1" "$2") ]]; }

# ns_keys BIN FOLDER N...: the coordinator's CURVE pair and one per worker, each worker's public key admitted through
# FOLDER/allow.
ns_keys() {
    local bin=$1 keys=$2 n
    shift 2
    mkdir -p "$keys/allow"
    "$bin" keygen coordinator --out "$keys" >/dev/null 2>&1
    for n in "$@"; do
        "$bin" keygen "w$n" --out "$keys" >/dev/null 2>&1
        cp "$keys/w$n.pub" "$keys/allow/"
    done
}

# ns_exec_worker TAG N MEDIA OUT COMMAND...: COMMAND in worker N's network namespace and in a mount namespace of its
# own where MEDIA and OUT are covered by empty file systems, so only its path map leads to the files. Paths go in as
# arguments, never pasted into the script text. Call it in the background (`ns_exec_worker ... &`): it execs, and so
# does each step after it, so the caller's $! is COMMAND itself (to signal, to wait for, to find in /proc).
ns_exec_worker() {
    local tag=$1 n=$2 media=$3 out=$4
    shift 4
    exec ip netns exec "$tag-w$n" unshare --mount --propagation private sh -c \
        'mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && shift 2 && exec "$@"' sh "$media" "$out" "$@"
}

# ns_worker_view VIEW CONFIG MEDIA OUT: a worker's view of the shared storage (VIEW/media and VIEW/out, bind mounts of
# MEDIA and OUT; appended to the caller's `mounts` before mounting, so an interruption between the two still
# unmounts) and CONFIG, its roots and its path map from the coordinator's paths to the view.
ns_worker_view() {
    local view=$1 config=$2 media=$3 out=$4
    mkdir -p "$view/media" "$view/out"
    mounts+=("$view/media" "$view/out")
    mount --bind "$media" "$view/media"
    mount --bind "$out" "$view/out"
    cat >"$config" <<YAML
worker:
  input-roots: ["$view/media"]
  output-root: "$view/out"
  path-map:
    - from: "$media"
      to: "$view/media"
    - from: "$out"
      to: "$view/out"
YAML
}
