#!/usr/bin/env bash
# Runs every test: installs system dependencies if missing, builds, runs the Swift Testing suites, then installs the
# Debian package into a fresh Debian 12 root and runs a night there (scripts/test-package.sh, as root).
#
# scripts/test.sh --quick: the unit-level suites only (every test target but EndToEndTests, DistributedTests and
# FuzzTests: no built binary, no cluster, no package), for the loop of work and for saying in a commit what ran.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [[ "${1:-}" == "--quick" ]]; then
    quick=1
    shift
fi
started_at=$SECONDS
# Each step's wall time, said as it ends, so a slow step is seen where it is (the suite's budget: docs/development.md).
mark=$SECONDS
took() {
    echo "test.sh: $1 took $((SECONDS - mark)) s"
    mark=$SECONDS
}

scripts/install-deps.sh
# Package.swift must declare exactly the modules each target imports.
python3 scripts/check-imports.py
# No Swift file over 500 lines, no function over 80 (the exceptions are listed in the script with their reasons).
python3 scripts/check-sizes.py
# The house style is checked, not hoped for: swift format's lint under the committed .swift-format (fix with
# `swift format format -i -r Sources Tests Plugins Package.swift`), and shellcheck's warnings and errors in the scripts
# (its notes are kept where the scripts mean them: indirect calls, single-quoted text for another shell).
# Both only read files: they run beside the build (one core for 10 s), and their verdict is awaited after it.
lint_log=$(mktemp)
(
    swift format lint --strict --recursive Sources Tests Plugins Benchmarks Package.swift Examples/RepairService/Sources Examples/RepairService/Package.swift
    if command -v shellcheck >/dev/null; then
        shellcheck --severity=warning scripts/*.sh scripts/lib/*.sh .ci/run
    fi
) >"$lint_log" 2>&1 &
lint_pid=$!
# Optimised, with the debug configuration's testability: content measurement and fixture synthesis run over millions
# of samples and are many times slower unoptimised. The flag is the build's, not the package's (unsafeFlags in
# Package.swift would make the package unusable as a dependency). The C targets at -O2, as the release build ships
# them: the kernels are tested as they run (no test depends any more on a repair being slow: docs/development.md).
# SwiftPM's incremental build can leave a target built without package access (the command line, DriftKitAPITests)
# compiled against a library module that has since changed (2026-11-30: a red CI that every local run had passed).
# After any change under Sources/ they are compiled again; a clean clone compiles everything anyway.
stamp=.build/test-sh-sources.stamp
if [[ ! -e $stamp ]] || [[ -n $(find Sources -newer "$stamp" -name '*.swift' -print -quit) ]]; then
    find Sources/driftfix Tests/DriftKitAPITests -name '*.swift' -exec touch {} +
fi
swift build --build-tests -Xswiftc -O -Xcc -O2
touch "$stamp"
lint_status=0
wait "$lint_pid" || lint_status=$?
cat "$lint_log"
rm -f "$lint_log"
if [[ $lint_status -ne 0 ]]; then
    echo "test.sh: swift format lint or shellcheck found a problem (above)" >&2
    exit 1
fi
took "checks and the build"
# The stretch's quality floors (about 30 s on 2 cores): ViSQOL scores the phase vocoder's stretches against ideal ones rendered
# from scores, each at or above its floor, and WSOLA's below it (scripts/stretch-quality.py check).
if [[ $quick -eq 0 ]]; then
    "${DRIFTFIX_OTIO_VENV:-.build-otio}/bin/python" scripts/stretch-quality.py check --driftfix .build/debug/driftfix
    took "the stretch's quality floors"
fi
# DriftKit's API against its last release's (api/baseline; a break passes only when api/allowed-breaks.txt and
# CHANGELOG.md name it): swift-api-digester and swift-symbolgraph-extract on the modules just built, seconds.
python3 scripts/api-check.py check
# ... and its readings, on symbols and dumps made up so that each answer is known (a text path behind any label).
python3 scripts/test-api-check.py
# The docs' generated tables are what their results files give (bench-results/; scripts/figures.py).
python3 scripts/figures.py check
# ... and the tool itself, on results made up so that each answer is known (a goal's verdict turns with its numbers).
python3 scripts/test-figures.py
# The benchmark tool's timing (real processes with known wall, CPU and peak) and its readers of other programs' lines.
python3 scripts/test-bench.py
# DriftKit's documentation, its symbol docs and four articles (Sources/DriftKit/DriftKit.docc), with DocC's warnings
# as errors: a broken link or an undocumented parameter fails the run. The same build flags, so nothing rebuilds.
if [[ $quick -eq 0 ]]; then
    swift package -Xswiftc -O -Xcc -O2 generate-documentation --target DriftKit --warnings-as-errors \
        --output-path .build/DriftKit.doccarchive
    took "the API check, the figures and the documentation"
fi
# Only Swift Testing is used, so the last summary line counts the tests that ran. The fuzz suite bounds the parsers'
# peak memory, which only means something in a process of its own: it runs after the others, alone.
# The output is kept too: a failure is named again at the end, where a log's tail shows it. tee runs on a descriptor
# of this script's own, so that it can be waited for before the log is read.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
exec 3> >(tee "$log")
teepid=$!
if [[ $quick -eq 1 ]]; then
    DRIFTFIX_TEST_TIER=quick swift test --skip-build --disable-xctest --skip 'EndToEndTests|DistributedTests|FuzzTests' "$@" \
        >&3 2>&1 &
elif [[ $# -eq 0 ]]; then
    swift test --skip-build --disable-xctest --skip FuzzTests >&3 2>&1 &
else
    swift test --skip-build --disable-xctest "$@" >&3 2>&1 &
fi
tests=$!

# Every wait inside the tests has a deadline, but a hang must never use up CI's time unexplained. The watchdog stops
# the run (a) past the time limit, after printing the process tree and every thread's stack and flushing the tests'
# buffered output, or (b) when the test binary has ended but a process it left behind still holds the runner's
# output open (swift test would wait for it for ever), naming that process.
limit=${DRIFTFIX_TEST_LIMIT:-1800}
(
    exec 3>&-  # the log's pipe stays the tests' alone
    started=$SECONDS
    orphaned=0
    while kill -0 "$tests" 2>/dev/null; do
        sleep 5
        if ! pgrep -f driftfixPackageTests >/dev/null && [[ $((SECONDS - started)) -gt 60 ]]; then
            orphaned=$((orphaned + 5))
        fi
        if [[ $orphaned -ge 30 ]]; then
            echo "test.sh: the tests have ended, but these processes they started keep the output open:" >&2
            ps -eo pid,ppid,pgid,etimes,stat,args --forest | awk '$1 != 2 && $2 != 2' | grep -v "ps -eo\|awk" >&2
            # Those writing into a pipe the runner reads and started after it (never this script's callers) are
            # ended too, so nothing outlives the run.
            pipes=" $(for fd in /proc/"$tests"/fd/*; do readlink "$fd"; done 2>/dev/null | grep '^pipe:' | tr '\n' ' ')"
            since=$(awk '{print $22}' "/proc/$tests/stat")
            for fd in /proc/[0-9]*/fd/[12]; do
                link=$(readlink "$fd" 2>/dev/null) || continue
                [[ "$link" == pipe:* && "$pipes" == *" $link "* ]] || continue
                holder=${fd#/proc/}; holder=${holder%%/*}
                [[ "$holder" == "$tests" || "$holder" == "$BASHPID" ]] && continue
                [[ $(awk '{print $22}' "/proc/$holder/stat" 2>/dev/null || echo 0) -gt $since ]] && kill -KILL "$holder" 2>/dev/null || true
            done
            kill -KILL "$tests" 2>/dev/null || true
            exit 0
        fi
        [[ $((SECONDS - started)) -lt $limit ]] && continue
        echo "test.sh: the tests still run after ${limit}s; what every process is doing:" >&2
        ps -eo pid,ppid,pgid,etimes,stat,args --forest | awk '$1 != 2 && $2 != 2' >&2
        for pid in $(pgrep -f 'driftfixPackageTests|/driftfix ' || true); do
            echo "--- stacks of $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" >&2
            timeout 120 gdb -batch -nx -p "$pid" -ex "thread apply all bt 25" -ex "call (int)fflush(0)" 2>&1 \
                | grep -E '^(#|Thread)' >&2 || true
        done
        pkill -KILL -f driftfixPackageTests || true
        kill -KILL "$tests" 2>/dev/null || true
        exit 0
    done
) &
watchdog=$!
status=0
wait "$tests" || status=$?
kill "$watchdog" 2>/dev/null || true
wait "$watchdog" 2>/dev/null || true
exec 3>&-
timeout 30 tail --pid="$teepid" -f /dev/null || true
if [[ $status -ne 0 ]]; then
    echo "test.sh: the tests failed (exit $status); what failed:" >&2
    grep -E '✘|recorded an issue|Fatal error|Crash' "$log" | cut -c1-600 | head -60 >&2 || true
    exit "$status"
fi
if [[ $quick -eq 1 ]]; then
    ran=$(grep -oE 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    echo "test.sh --quick: $ran unit-level tests passed in $((SECONDS - started_at)) s (build included)"
    exit 0
fi
# A run that ran nothing, or far fewer tests than the suite has, is no pass: the floor is the number of test functions
# (a parameterised test counts once) at the last change of it, less a margin for tests merged or removed on purpose;
# raise it with the suite.
if [[ $# -eq 0 ]]; then
    floor=${DRIFTFIX_MIN_TESTS:-395}
    ran=$(grep -oE 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    if [[ $ran -lt $floor ]]; then
        echo "test.sh: only $ran tests ran; the suite has at least $floor (DRIFTFIX_MIN_TESTS)" >&2
        exit 1
    fi
    echo "test.sh: $ran tests ran (floor $floor)"
    took "the Swift suites"
    fuzz=$(mktemp)
    timeout 600 swift test --skip-build --disable-xctest --filter FuzzTests 2>&1 | tee "$fuzz"
    fuzzed=$(grep -oE 'Test run with [0-9]+ tests?' "$fuzz" | tail -1 | grep -oE '[0-9]+' || echo 0)
    rm -f "$fuzz"
    if [[ $fuzzed -lt 5 ]]; then
        echo "test.sh: only $fuzzed fuzz tests ran; there are at least 5" >&2
        exit 1
    fi
    took "the fuzz suite"
    # Counted benchmarks (allocations and peak memory per unit of the hot paths) against Thresholds/: a regression
    # beyond its tolerance fails the run. DRIFTFIX_SKIP_BENCH_COUNTS=1 skips it (a release build, about 6 minutes).
    if [[ "${DRIFTFIX_SKIP_BENCH_COUNTS:-0}" != "1" ]]; then
        scripts/bench-counts.sh | grep -v '^\[[0-9]*/[0-9]*\]'
        took "the counted benchmarks"
    fi
    # DriftKit as a dependency: the example service (Examples/RepairService, Hummingbird) built as a package of its
    # own and answering real uploads on loopback with files of exactly their references' lengths.
    timeout 1200 scripts/test-example.sh 2>&1 | grep -v '^\[[0-9]*/[0-9]*\]\|CMakeLists.txt\|unhandled; explicitly'
    took "the example service"
fi
# The package, installed into a fresh Debian 12 root (root only; it says why when it cannot run, and in CI, where
# .ci/run sets DRIFTFIX_REQUIRE_PACKAGE_TEST=1, a package test that cannot run fails). Only the Swift suites:
# DRIFTFIX_SKIP_PACKAGE_TEST=1 (refused in CI).
if [[ "${DRIFTFIX_SKIP_PACKAGE_TEST:-0}" == "1" && -n "${DRIFTFIX_REQUIRE_PACKAGE_TEST:-}" ]]; then
    echo "test.sh: the package test is required here (DRIFTFIX_REQUIRE_PACKAGE_TEST) and may not be skipped" >&2
    exit 1
fi
if [[ "${DRIFTFIX_SKIP_PACKAGE_TEST:-0}" != "1" && $# -eq 0 ]]; then
    timeout 2400 scripts/test-package.sh
    took "the package test"
fi
echo "test.sh: passed in $((SECONDS - started_at)) s"
