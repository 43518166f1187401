#!/usr/bin/env bash
# The tests on a busy machine: stress-ng keeps every core busy (--cpu N, N = cores) while the suites run, so a test
# that races the scheduler (a fixed sleep, a wall-clock bound, an order left to chance) fails here rather than on CI.
#
#   scripts/loaded-tests.sh [RUNS] [FILTER]   RUNS times (default 5) the suites FILTER names (default: those that
#                                             wait on processes, sockets or the clock), after one build; FILTER ""
#                                             runs the whole suite; the fuzzing each time after, in its own process
# Exit 1 when any run fails; each run's log is kept in $DRIFTFIX_LOADED_LOGS (default: a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
filter=${2-LocalWorkerPoolTests|SecurityTests|RepairRunTests|GracefulStopTests|IdleCoreTests|SupervisionTests|MetricsServerTests|LiveMetricsTests|DeploymentTests|TimelineTests|BadInputTests|FolderScannerTests|MultiHostTests|SlurmNodesTests|SlurmLauncherTests|PersistentWorkerTests|VolumeTests|DurableRunTests}
command -v stress-ng >/dev/null || { echo "loaded-tests.sh: stress-ng is not installed (scripts/install-deps.sh)" >&2; exit 2; }
logs=${DRIFTFIX_LOADED_LOGS:-$(mktemp -d /tmp/driftfix-loaded.XXXXXX)}
mkdir -p "$logs"
swift build --build-tests -Xswiftc -O -Xcc -O2

stress-ng --cpu "$(nproc)" --timeout 0 --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null || true; wait "$stress" 2>/dev/null || true' EXIT
failed=0
for run in $(seq 1 "$runs"); do
    log="$logs/run-$run.log"
    started=$SECONDS
    arguments=(--skip-build --disable-xctest)
    if [[ -n "$filter" ]]; then arguments+=(--filter "$filter"); else arguments+=(--skip FuzzTests); fi
    # The fuzzing bounds peak memory, which only means something in a process of its own (as in scripts/test.sh).
    if swift test "${arguments[@]}" >"$log" 2>&1 \
        && swift test --skip-build --disable-xctest --filter FuzzTests >>"$log" 2>&1; then
        echo "loaded-tests.sh: run $run passed in $((SECONDS - started)) s: $(grep -oE 'Test run with [0-9]+ tests in [0-9]+ suites' "$log" | tr '\n' ';')"
    else
        failed=1
        echo "loaded-tests.sh: run $run FAILED in $((SECONDS - started)) s ($log):"
        grep -E '✘|recorded an issue' "$log" | cut -c1-400 | head -20
    fi
done
exit $failed
