#!/usr/bin/env bash
# A traced night across processes and network namespaces: a coordinator with 2 local workers in namespace TAG-c, a
# CURVE worker (w1) in a namespace of its own, and a real OTLP/HTTP receiver (scripts/otlp-receiver.py, decoding with
# the opentelemetry-proto package) in TAG-c that every process sends its spans to.
#
#   scripts/traced-night.sh MEDIA OUT REPORT SPANS        SPANS: the received spans, one JSON object per line
#
# SCENARIO=clean (default) lets the night run; SCENARIO=kill kills w1 (SIGKILL) while it writes, so its job is
# requeued and finished by a local worker. Needs root (namespaces). Exit 77: namespaces cannot be made here; 3: the
# scenario was not reached (w1 never caught writing).
set -euo pipefail
# shellcheck source=lib/namespaces.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/namespaces.sh"

media=$(realpath "$1")
out=$(realpath -m "$2")
report=$(realpath -m "$3")
spans=$(realpath -m "$4")
repository=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "${DRIFTFIX:-.build/debug/driftfix}")
python=${DRIFTFIX_OTIO_PYTHON:-$repository/.build-otio/bin/python}
scenario=${SCENARIO:-clean}
[[ $scenario == clean || $scenario == kill ]] || { echo "traced-night: SCENARIO is clean or kill" >&2; exit 2; }
tag="dft$$"
subnet=$((210 + $$ % 40))
work=$(mktemp -d "/run/driftfix-traced-XXXXXX")
mkdir -p "$out" "$report"
: >"$spans"
pids=()
# shellcheck disable=SC2034  # filled by ns_worker_view, read by ns_cleanup (lib/namespaces.sh)
mounts=()

cleanup() { ns_cleanup traced-night "$tag" "$work" 1; }
trap cleanup EXIT

if ! ns_star "$tag" "$subnet" 1; then
    echo "traced-night: cannot create network namespaces here (needs root and CAP_SYS_ADMIN); skipped" >&2
    exit 77
fi
keys="$work/keys"
ns_keys "$bin" "$keys" 1
ns_worker_view "$work/w1-view" "$work/w1.yaml" "$media" "$out"

# The collector: every address of the coordinator's namespace (local processes by loopback, w1 by its link).
ip netns exec "$tag-c" "$python" "$repository/scripts/otlp-receiver.py" --host 0.0.0.0 --port-file "$work/otlp.port" \
    --out "$spans" 2>"$work/receiver.err" &
pids+=("$!")
for _ in $(seq 1 200); do [[ -s "$work/otlp.port" ]] && break; sleep 0.05; done
[[ -s "$work/otlp.port" ]] || { echo "traced-night: the receiver did not start: $(cat "$work/receiver.err")" >&2; exit 1; }
collector=$(cat "$work/otlp.port")
# Exports every 200 ms (the standard variable), so a worker killed mid-night has sent its earlier jobs' spans.
export OTEL_BSP_SCHEDULE_DELAY=200 OTEL_SERVICE_NAME=driftfix-night OTEL_RESOURCE_ATTRIBUTES=deployment.environment=test

# w1 first, so it is there when the night's first jobs are handed out.
port=5555
ns_exec_worker "$tag" 1 "$media" "$out" env OTEL_EXPORTER_OTLP_ENDPOINT="http://10.$subnet.1.1:$collector" \
    "$bin" worker --connect "tcp://10.$subnet.1.1:$port" --identity w1 --concurrency 1 --heartbeat 0.5 \
    --max-backoff 0.2 --curve-secret "$keys/w1.key" --server-key "$keys/coordinator.pub" --config "$work/w1.yaml" \
    >"$work/w1.log" 2>&1 &
w1=$!
pids+=("$w1")

ip netns exec "$tag-c" env OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$collector" DRIFTFIX_LOG_LEVEL=info \
    "$bin" repair "$media" --out "$out" --report "$report" --journal "$work/journal.sqlite" --quality best \
    --bind "tcp://0.0.0.0:$port" --workers 2 --curve-secret "$keys/coordinator.key" --allow "$keys/allow" \
    --heartbeat 0.5 --idle-timeout 60 >"$work/coordinator.out" 2>"$work/coordinator.err" &
coordinator=$!
pids+=("$coordinator")

reached=yes
if [[ $scenario == kill ]]; then
    reached=""
    if ns_await "$coordinator" 60 ns_writing "$out" "$w1"; then
        kill -KILL "$w1"
        reached=yes
        echo "traced-night: killed w1 while it was writing" >&2
    else
        echo "traced-night: w1 was never caught writing" >&2
    fi
fi

status=0
wait "$coordinator" || status=$?
cat "$work/coordinator.out"
# The trace ids in the coordinator's log lines (the test checks they are the night's).
grep -E "trace_id=" "$work/coordinator.err" | head -5 >&2 || true
grep -E "lost|requeued|joined|traces:" "$work/coordinator.err" >&2 || true
if [[ $scenario == clean ]]; then
    kill -TERM "$w1" 2>/dev/null || true
    wait "$w1" 2>/dev/null || true
fi
echo "traced-night: coordinator exit $status; scenario $scenario reached: ${reached:-no}" >&2
[[ -n $reached ]] || status=3
exit "$status"
