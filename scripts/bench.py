#!/usr/bin/env python3
"""driftfix's benchmarks: each section times a release build against its peers in the same run (ffmpeg, sox, Rubber
Band, a synced copy, the same night undisturbed), prints what it measured and keeps it as a results file in
bench-results/ (date, machine and command included), from which the docs' measured tables are generated
(scripts/figures.py). The machines are shared and noisy: compare the ratios within one run, not absolute speeds across
runs.

    scripts/bench.sh [SECTION...]        build the release binaries, then run the sections (default: all)
    scripts/bench.py --list              the sections and what each measures
    scripts/bench.py --results /tmp/r kernel   a trial run: results elsewhere, the docs left alone

Sizes come from the environment, as they always have (BENCH_SECONDS=600, BENCH_SECTIONS="dispatch repair",
BENCH_KERNEL_SECONDS, BENCH_FLEET_DEVICES, ...; --list names each section's).
"""
import argparse
import os
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchkit import core  # noqa: E402
from benchkit.sections import load, with_partners  # noqa: E402


def build():
    """The dependencies, then both release binaries, as a user's build makes them."""
    subprocess.run([os.path.join(core.SCRIPTS, "install-deps.sh")], check=True, cwd=core.ROOT)
    for product in ("driftfix", "driftfix-bench"):
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", product], check=True,
                       cwd=core.ROOT, stdout=subprocess.DEVNULL)


def main():
    sys.stdout.reconfigure(line_buffering=True)  # its lines in order with the sections' own and stderr's
    sections = load()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sections", nargs="*", metavar="SECTION",
                        help="sections to run, in the order given (default: BENCH_SECTIONS, else every section)")
    parser.add_argument("--list", action="store_true", help="list the sections and exit")
    parser.add_argument("--bin", default=os.path.join(core.ROOT, ".build", "release"),
                        help="the folder of driftfix and driftfix-bench (default: .build/release)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries in --bin as they are")
    parser.add_argument("--work", default=os.environ.get("BENCH_DIR", os.path.join(core.ROOT, "bench-output")),
                        help="where inputs are generated and kept between runs (default: BENCH_DIR or bench-output)")
    parser.add_argument("--results", default=core.figures.RESULTS,
                        help="where results files go (default: bench-results/, which also renders the docs)")
    options = parser.parse_args()
    if options.list:
        for entry in sections.values():
            print(f"{entry.name:<14} {entry.summary}{'' if entry.default else ' (only when named)'}")
            if entry.sizes:
                print(f"{'':<14} sizes: {entry.sizes}")
            if entry.brings:
                print(f"{'':<14} runs after: {', '.join(entry.brings)} (added when not named)")
        return 0
    chosen = options.sections or os.environ.get("BENCH_SECTIONS", "").split() or \
        [name for name, entry in sections.items() if entry.default]
    unknown = [name for name in chosen if name not in sections]
    if unknown:
        parser.error(f"no section {', '.join(unknown)} (scripts/bench.py --list names them)")
    chosen = with_partners(chosen, sections)
    if not options.no_build:
        build()
    bench = core.Bench(bin_dir=os.path.abspath(options.bin), work=os.path.abspath(options.work),
                       results=os.path.abspath(options.results), seconds=int(os.environ.get("BENCH_SECONDS", 3600)))
    # From the checkout, wherever it was started: relative paths in the environment (a venv's python) and in
    # fixtures an earlier run wrote (a shoot's truth) mean what they meant to scripts/bench.sh.
    os.chdir(core.ROOT)
    failed = []
    for name in chosen:
        start = time.monotonic()
        try:
            sections[name].run(bench)
        except core.BenchError as error:
            print(f"bench: section {name} failed: {error}", file=sys.stderr)
            failed.append(name)
        except Exception:  # a section's own bug: said with its trace, and the other sections still run
            traceback.print_exc()
            failed.append(name)
        print(f"bench: section {name} took {time.monotonic() - start:.0f} s", file=sys.stderr)
    if failed:
        print(f"bench: {len(failed)} section(s) failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
