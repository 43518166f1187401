#!/usr/bin/env bash
# The docker-compose topology as local processes (the tested path; no Docker engine needed):
# one coordinator bound to a TCP port on loopback and N workers connecting to it.
#
#   scripts/cluster.sh MEDIA_DIR OUT_DIR [WORKERS] [PORT]
set -euo pipefail
cd "$(dirname "$0")/.."
media=${1:?usage: scripts/cluster.sh MEDIA_DIR OUT_DIR [WORKERS] [PORT]}
out=${2:?usage: scripts/cluster.sh MEDIA_DIR OUT_DIR [WORKERS] [PORT]}
workers=${3:-$(nproc)}
port=${4:-5555}
bin=${DRIFTFIX_BIN:-.build/release/driftfix}
[[ -x "$bin" ]] || swift build -c release --static-swift-stdlib --product driftfix >/dev/null

"$bin" repair "$media" --out "$out" --bind "tcp://127.0.0.1:$port" --workers 0 --report "$out/_report" ${DRIFTFIX_CONFIG:+--config "$DRIFTFIX_CONFIG"} &
coordinator=$!
pids=()
for i in $(seq 1 "$workers"); do
    "$bin" worker --connect "tcp://127.0.0.1:$port" --concurrency 1 --identity "cluster-$i" &
    pids+=($!)
done
# Waits until every worker has exited, at most $1 tenths of a second; never fails (the caller ends those left).
await_workers() {
    local alive pid
    for _ in $(seq 1 "$1"); do
        alive=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [[ $alive == 0 ]] && break
        sleep 0.1
    done
    return 0
}
status=0
wait "$coordinator" || status=$?
# The coordinator tells its workers to exit; one that never reached it is asked to stop, then ended.
await_workers 100
for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
await_workers 50
for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
exit $status
