"""Pitch-preserving time-stretch against its peers: the speed of each stretcher on one core and the phase vocoder's
peak memory on a long file (stretch-speed), how each one sounds by ViSQOL and PESQ against ideal stretches rendered
from scores (stretch, through scripts/stretch-quality.py), and the older round-trip log-spectral distance (quality,
printed only)."""
import json
import os
import shutil
import subprocess
import tempfile

from ..core import ROOT, BenchError, output, remove, run_once, timed
from . import section

SONG = os.path.join(ROOT, "Tests", "Music", "Kevin_MacLeod_-_Vibe_Ace.ogg")
# The stretch-speed table's rows: the label printed, the tool's name in the results (figures.py's TOOL_NAMES).
SPEED_TOOLS = (("driftfix (auto)", "driftfix"), ("driftfix vocoder", "driftfix:vocoder"),
               ("driftfix wsola", "driftfix:wsola"), ("rubberband -3 (R3)", "R3"), ("rubberband -2 (R2)", "R2"),
               ("sox tempo", "sox"))
QUALITY_TOOLS = "driftfix,driftfix:vocoder,driftfix:wsola,R2,R3,sox"


def stretched_frames(frames, ratio):
    """A frame count stretched by RATIO, rounded half up (as the shell's awk printf "%d", n * r + 0.5 did)."""
    return int(frames * ratio + 0.5)


def speed_commands(bench, song, out, frames, ratio):
    """Each stretcher's command making OUT from SONG at RATIO, FRAMES long, in SPEED_TOOLS' order."""
    stretch = [bench.driftfix, "process", song, out, "--method", "stretch", "--to-frames", str(frames)]
    duration = f"{frames / 48000:.9f}"
    return [stretch + ["-q", "-y"],
            stretch + ["--stretch-engine", "vocoder", "-q", "-y"],
            stretch + ["--stretch-engine", "wsola", "-q", "-y"],
            ["rubberband", "-q", "-3", "--centre-focus", "-D", duration, song, out],
            ["rubberband", "-q", "-2", "--centre-focus", "-D", duration, song, out],
            ["sox", song, out, "tempo", f"{1 / ratio:.10f}"]]


@section("stretch-speed", "the stretchers' speed on one core against Rubber Band and sox; the vocoder's peak memory",
         sizes="BENCH_STRETCH_SECONDS=120 BENCH_SECONDS=3600")
def stretch_speed(bench):
    # One core (Rubber Band, its channels together as driftfix's, and sox are single-threaded) on a real song looped
    # to BENCH_STRETCH_SECONDS, 48 kHz stereo: median of 3 wall seconds, as xRT, and each tool's time over Rubber
    # Band R3's at the same ratio. Then the vocoder on the whole BENCH_SECONDS input, for its peak memory (constant
    # whatever the length).
    seconds = bench.number("STRETCH_SECONDS", 120)
    long_input = bench.input_wav
    song = bench.path(f"stretch-song-{seconds}s.wav")
    if not os.path.exists(song):
        run_once(["sox", SONG, "-r", "48000", "-c", "2", "-b", "24", song, "repeat", "60", "trim", "0", str(seconds)])
    out = bench.path("st.wav")
    print(f"\n## Pitch-preserving stretch: a song looped to {seconds} s, 48 kHz stereo, one core; xRT, time over R3's, "
          "peak MiB")
    print(f"{'tool':<30} {'xRT':>8} {'vs R3':>9} {'peak MiB':>9}")
    rows = []
    for ratio in (0.8, 1.25):
        frames = stretched_frames(seconds * 48000, ratio)
        measured = [timed(3, command, pin=True) for command in speed_commands(bench, song, out, frames, ratio)]
        r3 = measured[3].wall.median
        for (label, tool), runs in zip(SPEED_TOOLS, measured):
            wall = runs.wall.median
            print(f"{f'{label} x{ratio:g}':<30} {seconds / wall:8.1f} {wall / r3:8.2f}x {runs.peak_mib:9d}")
            rows.append({"ratio": ratio, "tool": tool, "wall": wall, "peakMiB": runs.peak_mib})
        remove(out)
    long_runs = timed(3, [bench.driftfix, "process", long_input, out, "--method", "stretch", "--ratio", "1.25",
                          "--stretch-engine", "vocoder", "-q", "-y"], pin=True)
    remove(out)
    wall = long_runs.wall.median
    print(f"{f'driftfix vocoder x1.25, {bench.seconds} s':<30} {bench.seconds / wall:8.1f} {'':>9} "
          f"{long_runs.peak_mib:9d}")
    # The docs' speed table is generated from it.
    bench.record("stretch-speed.json", {"seconds": seconds, "rows": rows,
                                        "long": {"seconds": bench.seconds, "wall": wall,
                                                 "peakMiB": long_runs.peak_mib}},
                 "BENCH_SECTIONS=stretch-speed scripts/bench.sh")


@section("stretch", "ViSQOL and PESQ of every stretcher against ideal stretches, a song by round trip",
         sizes="BENCH_STRETCH_RATIOS, BENCH_STRETCH_MATERIALS (unset: all of stretch-quality.py's)",
         brings=("stretch-speed",))  # the docs set each tool's score beside its speed
def stretch(bench):
    # ViSQOL (and PESQ on speech) against ideal stretches rendered from scores, and round trips of a real song
    # (scripts/stretch-quality.py; docs/performance.md explains the materials): every tool, material and ratio. The
    # older log-spectral distance is the quality section's. BENCH_STRETCH_RATIOS and BENCH_STRETCH_MATERIALS (the
    # script's --ratios and --materials, comma-separated) make a trial run small; unset, the script's full set.
    print("\n## Stretch quality: ViSQOL MOS-LQO (1..5, higher is better) against ideal stretches; a song by round trip",
          flush=True)  # before the script's table, which it writes on the same stdout
    # ViSQOL and PESQ live in the OpenTimelineIO venv that scripts/install-deps.sh makes.
    python = os.path.join(ROOT, os.environ.get("DRIFTFIX_OTIO_VENV", ".build-otio"), "bin", "python")
    if not os.access(python, os.X_OK):
        raise BenchError(f"{python} is missing (scripts/install-deps.sh makes the venv with ViSQOL and PESQ)")
    options = ["--tools", QUALITY_TOOLS]
    for name, option in (("STRETCH_RATIOS", "--ratios"), ("STRETCH_MATERIALS", "--materials")):
        if bench.setting(name, ""):
            options += [option, bench.setting(name, "")]
    log = bench.path("stretch-quality.log")
    with tempfile.TemporaryDirectory() as folder:
        scores = os.path.join(folder, "stretch-quality.json")
        # Its table on our stdout as it goes; its line a score on the log, as the shell kept them.
        with open(log, "w") as errors:
            status = subprocess.run([python, os.path.join(ROOT, "scripts", "stretch-quality.py"), "score",
                                     "--driftfix", bench.driftfix, *options, "--json", scores],
                                    stderr=errors, stdin=subprocess.DEVNULL, cwd=ROOT).returncode
        if status:
            with open(log) as errors:
                tail = errors.read().strip().splitlines()[-3:]
            raise BenchError(f"stretch-quality.py score exited {status} (its log: {log}): " + " / ".join(tail))
        with open(scores) as handle:
            data = json.load(handle)
    # The script wrote its own date, machine and command; the results file gets the bench's (in their places), as
    # every other one.
    bench.record("stretch-quality.json", data,
                 f"BENCH_SECTIONS=stretch scripts/bench.sh (scripts/stretch-quality.py score {' '.join(options)} "
                 "--json)")


def both_legs(bench, first, second, original, back):
    """Runs two commands (there, then back) and returns their wall seconds together and the log-spectral distance
    of BACK to ORIGINAL as driftfix-bench lsd prints it."""
    wall = run_once(first).wall + run_once(second).wall
    return output([bench.tool, "lsd", original, back]).strip(), wall


@section("quality", "round trips by r then 1/r on a speech-like signal: log-spectral distance (printed only)")
def quality(bench):
    print("\n## Stretch quality: round trip by r then 1/r on a 10 s speech-like signal (f0 120 Hz, three formants)")
    print("## log-spectral distance to the original in dB (lower is better); seconds for both legs")
    speech = bench.path("speech.wav")
    if not os.path.exists(speech):
        run_once([bench.tool, "signal", speech, "--kind", "speech", "--seconds", "10"])
    frames = 480000
    there, back = bench.path("a.wav"), bench.path("b.wav")
    peers = [name for name in ("sox", "rubberband") if shutil.which(name)]
    print(f"{'ratio':<10} {'driftfix':>18} {'sox tempo':>18} {'rubberband':>18}")
    for ratio in (0.97, 1.25, 2):
        inverse = f"{1 / ratio:.10f}"
        legs = [([bench.driftfix, "process", speech, there, "--method", "stretch", "--to-frames",
                  str(stretched_frames(frames, ratio)), "-q"],
                 [bench.driftfix, "process", there, back, "--method", "stretch", "--to-frames", str(frames), "-q"])]
        if "sox" in peers:
            legs.append((["sox", speech, there, "tempo", inverse], ["sox", there, back, "tempo", str(ratio)]))
        if "rubberband" in peers:
            legs.append((["rubberband", "-q", "-t", str(ratio), speech, there],
                         ["rubberband", "-q", "-t", inverse, there, back]))
        row = f"{ratio:<10g}"
        for first, second in legs:
            remove(there, back)  # driftfix is not told -y: a leftover of an interrupted run would stop it
            distance, wall = both_legs(bench, first, second, speech, back)
            row += f" {distance:>10} dB {wall:4.2f}s"
            remove(there, back)
        print(row)
