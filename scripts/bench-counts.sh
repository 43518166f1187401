#!/usr/bin/env bash
# Counted benchmarks: allocations and peak memory per unit of each hot path (the resampling kernel, libsoxr cut into
# chunks on two threads, a sound print, a scan of 200 pairs, 1,000 JSON report rows, the dispatcher over 1,000 jobs),
# built in release mode by package-benchmark and checked against the figures committed in Thresholds/. Counts repeat
# on a busy machine where times do not, so this runs in CI; wall-clock ratios to ffmpeg and sox stay in
# scripts/bench.sh.
#
#   scripts/bench-counts.sh            check: exit 0 within tolerance (or better), 1 on a regression
#   scripts/bench-counts.sh --update   measure again and rewrite Thresholds/ (commit it, saying why)
#   scripts/bench-counts.sh --run      print the figures only
set -euo pipefail
cd "$(dirname "$0")/.."
# In a scratch folder of its own: the plain release build it needs and the static one the package and bench.sh build
# (--static-swift-stdlib) compile differently, and in one .build each rebuilt the other from scratch every time
# (150 s here, then 190 s for the package). Apart, each is incremental: 16 s warm.
benchmark=(swift package --scratch-path .build-bench --disable-sandbox --allow-writing-to-package-directory benchmark)
case "${1:---check}" in
--update)
    "${benchmark[@]}" thresholds update --target DriftBenchmarks --no-progress
    ;;
--run)
    "${benchmark[@]}" --target DriftBenchmarks --no-progress
    ;;
--check)
    # The plugin exits 1 both for a regression and for an improvement beyond the thresholds: its words tell which.
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    status=0
    "${benchmark[@]}" thresholds check --target DriftBenchmarks --no-progress 2>&1 | tee "$log" || status=$?
    if [[ $status -eq 0 ]]; then
        echo "bench-counts: every count within its threshold"
    elif grep -q "benchmarkThresholdRegression\|is WORSE than" "$log"; then
        echo "bench-counts: a regression beyond its threshold (above)" >&2
        exit 1
    elif grep -q "benchmarkThresholdImprovement\|is BETTER than" "$log"; then
        echo "bench-counts: better than the thresholds; scripts/bench-counts.sh --update records the gain"
    else
        echo "bench-counts: the benchmarks did not run (exit $status)" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: scripts/bench-counts.sh [--check | --update | --run]" >&2
    exit 2
    ;;
esac
