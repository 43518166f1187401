#!/usr/bin/env bash
# Several hosts for real, on one machine: a coordinator and two workers, each in its own network namespace, joined
# by veth links and talking TCP with CURVE (keys made with `driftfix keygen`, workers admitted by an allowlist).
# Each worker sees the media and the output under its own mount point (a bind mount; the coordinator's paths are
# hidden from it) and finds them through its path map. Two scenarios:
#
#   cut   (default) mid-run, the first worker's link is cut for good (its veth brought down) while it writes (a
#         failpoint makes it take a second over each rename); the coordinator must notice, lease its job to the other
#         worker, and finish.
#   heal  a partition that heals: worker 1 is held at its first job's rename (a failpoint stops it with a verified
#         temporary file, the worst moment) and its link is cut; once the coordinator has given its lease up and the
#         other worker has published the job, worker 1 runs on (its fence must refuse the rename: it has not heard
#         the coordinator past a lease) and its link comes back, so its late result reaches the coordinator (which
#         must discard it as stale) and it goes on taking jobs.
#
# usage: scripts/multihost.sh MEDIA OUT REPORT_DIR
# env:   DRIFTFIX   the driftfix binary (default .build/debug/driftfix)
#        QUALITY    resampler quality for the run (default best: jobs long enough to cut a link during one)
#        SCENARIO   cut or heal (default cut)
#        JOURNAL    where the coordinator keeps its journal (default: a file removed with the rest)
# exit:  the coordinator's exit code (0: every pair repaired); 77 when network namespaces cannot be made here; 3 when
#        the scenario's moment was never reached.
# Needs root (ip netns, mount). Leaves nothing behind: namespaces, mounts and processes are removed on exit.
set -euo pipefail
# shellcheck source=lib/namespaces.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/namespaces.sh"

media=$(realpath "$1")
out=$(realpath -m "$2")
report=$(realpath -m "$3")
bin=$(realpath "${DRIFTFIX:-.build/debug/driftfix}")
quality=${QUALITY:-best}
scenario=${SCENARIO:-cut}
[[ $scenario == cut || $scenario == heal ]] || { echo "multihost: SCENARIO is cut or heal" >&2; exit 2; }
tag="dfx$$"
work=$(mktemp -d "/run/driftfix-multihost-XXXXXX")
mkdir -p "$out" "$report"
pids=()
# shellcheck disable=SC2034  # filled by ns_worker_view, read by ns_cleanup (lib/namespaces.sh)
mounts=()

cleanup() { ns_cleanup multihost "$tag" "$work" 1 2; }
trap cleanup EXIT

# One point-to-point link per worker: 10.201.N.1 (coordinator side) <-> 10.201.N.2 (worker N).
if ! ns_star "$tag" 201 1 2; then
    echo "multihost: cannot create network namespaces here (needs root and CAP_SYS_ADMIN); skipped" >&2
    exit 77
fi

# Keys: the coordinator's pair; one per worker, admitted through the allowlist folder.
keys="$work/keys"
ns_keys "$bin" "$keys" 1 2

# Each worker's view of the shared storage: its own mount points, and a path map from the coordinator's paths.
for n in 1 2; do ns_worker_view "$work/w$n-view" "$work/w$n.yaml" "$media" "$out"; done

port=5555
# `ip netns exec` replaces itself with the command, so $! is the coordinator itself.
ip netns exec "$tag-c" "$bin" repair "$media" --out "$out" --report "$report" --journal "${JOURNAL:-$work/journal.sqlite}" \
    --quality "$quality" --bind "tcp://0.0.0.0:$port" --workers 0 --curve-secret "$keys/coordinator.key" \
    --allow "$keys/allow" --heartbeat 0.5 --idle-timeout 30 >"$work/coordinator.out" 2>"$work/coordinator.err" &
coordinator=$!
pids+=("$coordinator")

# Workers: in their own network namespace and their own mount namespace, where the coordinator's paths are
# covered by empty file systems, so only the path map leads to the files.
start_worker() {  # n [VARIABLE=VALUE...]: the worker's extra environment
    local n=$1
    shift
    ns_exec_worker "$tag" "$n" "$media" "$out" env "$@" "$bin" worker --connect "tcp://10.201.$n.1:$port" --identity "w$n" --concurrency 1 --heartbeat 0.5 \
        --max-backoff 1 --curve-secret "$keys/w$n.key" --server-key "$keys/coordinator.pub" --config "$work/w$n.yaml" \
        >"$work/w$n.log" 2>&1 &
    echo $!
}
# In the heal scenario worker 1 stops itself at its first rename (verified temporary file, not yet renamed), and
# worker 2 takes a second over each rename after its first: jobs are still queued when worker 1 is back, on a fast
# machine as on a slow one. In the cut scenario worker 1 takes a second over each rename, as a slow disk would: its
# temporary file stands long enough to be seen between two looks 50 ms apart (an optimised build once wrote each of
# its files in less, and the link was never cut).
if [[ $scenario == heal ]]; then
    w1=$(start_worker 1 DRIFTFIX_FAILPOINT=commit:1:stop)
    w2=$(start_worker 2 DRIFTFIX_FAILPOINT=commit:2:delay)
else
    w1=$(start_worker 1 DRIFTFIX_FAILPOINT=commit:1:delay)
    w2=$(start_worker 2)
fi
pids+=("$w1")
pids+=("$w2")

# Waits until the command succeeds, at most $1 seconds; fails when the coordinator is gone.
await() { ns_await "$coordinator" "$@"; }  # seconds command...
stopped() { [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) == T ]]; }
w1_temporary() { ns_temporary "$out" "$w1"; }
said() { grep -qF "$1" "$work/coordinator.err"; }

cut=""
if [[ $scenario == heal ]]; then
    if await 120 stopped "$w1" && [[ -n $(w1_temporary) ]]; then
        temporary=$(w1_temporary)
        name=$(basename "$temporary")
        name=${name#.}
        destination="$(dirname "$temporary")/${name%%.driftfix-*}"
        ip -n "$tag-c" link set "$tag-c1" down
        echo "multihost: w1 held at its rename of $destination; its link is cut" >&2
        # The lease is given up and the job published by w2 before w1 may go on.
        if await 60 said "worker w1 lost" && await 120 test -e "$destination"; then
            echo "multihost: w1's lease given up and its job published by another worker" >&2
            kill -CONT "$w1"
            # w1's fence decides; its temporary file goes either way (renamed or discarded).
            await 30 test ! -e "$temporary" || echo "multihost: w1's temporary file stayed" >&2
            ip -n "$tag-c" link set "$tag-c1" up
            cut=yes
            echo "multihost: w1 running again and its link back up" >&2
        else
            kill -CONT "$w1"
        fi
    else
        echo "multihost: w1 never reached its rename" >&2
        kill -CONT "$w1" 2>/dev/null || true
    fi
else
    # Cut worker 1's link while it writes a repaired file (its temporary file is named after its pid).
    if await 30 ns_writing "$out" "$w1"; then
        ip -n "$tag-c" link set "$tag-c1" down
        cut=yes
        echo "multihost: cut w1's link while it was writing" >&2
    else
        echo "multihost: w1 was never caught writing; its link was not cut" >&2
    fi
fi

status=0
wait "$coordinator" || status=$?
cat "$work/coordinator.out"
grep -E "lost|refused|failed the security|joined|late result|requeued" "$work/coordinator.err" >&2 || true
if [[ $scenario == heal ]]; then
    echo "multihost: w1's log:" >&2
    grep -E "published|silent|connected" "$work/w1.log" >&2 || true
fi
echo "multihost: coordinator exit $status; scenario $scenario reached: ${cut:-no}" >&2
[[ -n "$cut" ]] || status=3
exit "$status"
