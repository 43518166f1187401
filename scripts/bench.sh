#!/usr/bin/env bash
# Benchmarks (release build): scripts/bench.py does the work; this is the command the docs name.
#
#   scripts/bench.sh                      every section (scripts/bench.py --list names them and their sizes)
#   scripts/bench.sh kernel memory        some sections (or BENCH_SECTIONS="kernel memory" scripts/bench.sh)
#   BENCH_SECONDS=600 scripts/bench.sh    a shorter long input for the resample, stretch and AAC sections
#
# Sizes are BENCH_* environment variables (bench.py --list). Results go to bench-results/ and the docs' measured
# tables are rendered from them (scripts/figures.py).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/bench.py "$@"
