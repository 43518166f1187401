"""The speed and memory of a repair: the kernel against ffmpeg, sox and a synced copy; every engine's peak memory; the
converters alone; the engines on one core; the resample pipeline; compressed (AAC) repair."""
import dataclasses
import json
import os
import re
import shutil
import subprocess

from ..core import BenchError, Spread, frames_at, output, remove, run_once, timed, wall_of
from . import section

RATIO = 0.999869  # -131 ppm: output length / input length
SPEED = 1.000131  # the same repair as a sox speed factor (input length / output length)
FFMPEG_EXACT = "asetrate=1000000,aresample=999869:resampler={},asetrate=48000"


# ffmpeg's exact-rate recipe with its default resampler (swr), as the resample and AAC sections have always run it.
FFMPEG_DEFAULT = "asetrate=1000000,aresample=999869,asetrate=48000"


def snr_line(line):
    """driftfix-bench snr's line ("121.9 -0.0002 +0.0001 0"): SNR (dB) against the analytic ideal, the lag at the
    start and at the end (frames, kept as printed, sign and all), frames off the target."""
    words = line.split()
    return float(words[0]), words[1], words[2], int(words[3].lstrip("+"))


def snr(bench, path, frames, target):
    """driftfix-bench snr: SNR (dB) against the analytic ideal, lag at the start and the end, frames off target."""
    return snr_line(output([bench.tool, "snr", path, "--input-frames", str(frames), "--target-frames", str(target)]))


@section("kernel", "the default repair against ffmpeg, sox and a synced copy, every core and one",
         sizes="BENCH_KERNEL_SECONDS=600")
def kernel(bench):
    # Median of 5 wall seconds; peak RSS (MiB, the largest of the five); SNR against the analytically known ideal;
    # frames off the exact target. Files on tmpfs when there is one.
    seconds = bench.number("KERNEL_SECONDS", 600)
    frames = seconds * 48000
    target = frames_at(frames, RATIO)
    with bench.scratch("kernel") as scratch:
        source = os.path.join(scratch, "kernel-src.wav")
        out = os.path.join(scratch, "o.wav")
        copy = os.path.join(scratch, "copy.wav")
        run_once([bench.tool, "generate", source, "--seconds", str(seconds)])
        print(f"\n## The speed of a copy: {seconds} s, 48 kHz stereo 24-bit WAV, -131 ppm ({frames} -> {target} "
              f"frames), {bench.cores} cores; median of 5 (min-max)")
        print("| command | wall | vs ffmpeg swr | peak MiB | against the ideal |")
        print("| --- | --- | --- | --- | --- |")
        rows, wall = [], {}

        leftovers = [out, copy, bench.path("o.wav"), bench.path("copy.wav")]

        def row(label, args, result=None, pin=False):
            """RESULT: the repaired file, held to the ideal (a copy has none)."""
            remove(*leftovers)
            runs = timed(5, args, pin=pin)
            spread = runs.wall
            wall[label] = spread.median
            quality, db, off = "-", None, None
            if result:
                db, _, _, off = snr(bench, result, frames, target)
                quality = f"{db} dB, {off:+d} off"
            rows.append({"label": label, "wall": spread.median, "min": spread.low, "max": spread.high,
                         "peakMiB": runs.peak_mib, "snrDB": db, "framesOff": off})
            against = f"{wall['ffmpeg swr'] / spread.median:.2f}x" if "ffmpeg swr" in wall else "-"
            print(f"| {label:<52} | {spread.median:6.3f} s ({spread.low:.3f}-{spread.high:.3f}) | {against:>8} | "
                  f"{runs.peak_mib:>9} | {quality:<18} |")
            remove(*leftovers)

        ffmpeg = ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", source, "-af", FFMPEG_EXACT.format("swr"),
                  "-c:a", "pcm_s24le", out]
        process = [bench.driftfix, "process", source, out, "--to-frames", str(target), "-q", "-y"]
        synced_copy = ["dd", f"if={source}", f"of={copy}", "bs=1M", "conv=fsync", "status=none"]
        row("ffmpeg swr", ffmpeg, out)
        row("dd conv=fsync of the input (the floor)", synced_copy)
        row("cp of the input (no fsync)", ["cp", source, copy])
        row("ffmpeg decode + PCM encode, no resampling",
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", source, "-c:a", "pcm_s24le", copy])
        row("driftfix process --to-frames N (default, every core)", process, out)
        row("driftfix process --engine soxr (every core)", process + ["--engine", "soxr"], out)
        row("ffmpeg swr, one core", ffmpeg, out, pin=True)
        row("sox speed, one core", ["sox", source, out, "speed", "1.000131017"], out, pin=True)
        row("driftfix process (default), one core", process, out, pin=True)
        if bench.on_tmpfs(scratch):
            # The same two on the disk (the work folder), where fsync writes to a device rather than to memory.
            on_disk = bench.path("kernel-src.wav")
            disk_out, disk_copy = bench.path("o.wav"), bench.path("copy.wav")
            try:
                shutil.copyfile(source, on_disk)
                row("dd conv=fsync of the input, on the disk",
                    ["dd", f"if={on_disk}", f"of={disk_copy}", "bs=1M", "conv=fsync", "status=none"])
                row("driftfix process (default, every core), on the disk",
                    [bench.driftfix, "process", on_disk, disk_out, "--to-frames", str(target), "-q", "-y"], disk_out)
            finally:
                remove(on_disk, disk_out, disk_copy)
        # The goal's ratio again, the two commands alternated (a busy minute then slows both alike): 9 pairs, the
        # median of each and of the pairs' ratios; each timed bare, as the ratio is close.
        pairs = []
        for _ in range(9):
            copied = wall_of(synced_copy)
            repaired = wall_of(process)
            pairs.append({"copy": copied, "driftfix": repaired, "ratio": repaired / copied})
        remove(copy, out)
        ratios = Spread.of([pair["ratio"] for pair in pairs])
        print(f"alternated, {len(pairs)} pairs: dd conv=fsync {Spread.of([p['copy'] for p in pairs]).median:.3f} s, "
              f"driftfix (every core) {Spread.of([p['driftfix'] for p in pairs]).median:.3f} s; "
              f"{ratios.median:.2f}x the synced copy (pairs {ratios.low:.2f}-{ratios.high:.2f}; goal 2)")
        raw = float(output([bench.tool, "raw", source, "--seconds", str(seconds), "--engine", "polyphase",
                            "--quality", "medium"], pin=True))
        one = wall["driftfix process (default), one core"]
        every = wall["driftfix process --to-frames N (default, every core)"]
        print(f"whole machine: {wall['ffmpeg swr'] / every:.2f}x ffmpeg swr (goal 2.5); one core: "
              f"{wall['ffmpeg swr, one core'] / one:.2f}x ffmpeg swr on one core (goal 1.5), "
              f"{wall['sox speed, one core'] / one:.2f}x sox; "
              f"{every / wall['dd conv=fsync of the input (the floor)']:.2f}x the synced copy (goal 2)")
        print(f"the kernel alone on one core (in memory): {seconds / raw:.2f} s of the {one:.2f} s; the rest is "
              "reading, converting and writing")
        bench.record("kernel.json", {"seconds": seconds, "frames": frames, "targetFrames": target,
                                     "files": "tmpfs" if bench.on_tmpfs(scratch) else "disk", "kernelRealtime": raw,
                                     "rows": rows, "alternated": pairs},
                     "BENCH_SECTIONS=kernel scripts/bench.sh")


@section("memory", "the peak memory of every engine, quality and repair kind, every core and one")
def memory(bench):
    # The goal is under 64 MiB each: 600 s of stereo and 300 s of six channels, 48 kHz 24-bit at -131 ppm, files on
    # tmpfs when there is one; the largest peak RSS of two runs (MiB). Fixed sizes: memory does not grow with length.
    stereo_target, six_target = frames_at(600 * 48000, RATIO), frames_at(300 * 48000, RATIO)
    with bench.scratch("memory") as scratch:
        stereo, six, out = (os.path.join(scratch, name) for name in ("stereo.wav", "six.wav", "o.wav"))
        run_once([bench.tool, "generate", stereo, "--seconds", "600"])
        run_once([bench.tool, "generate", six, "--seconds", "300", "--channels", "6"])
        print("\n## Peak memory (MiB): 600 s stereo and 300 s six channels, 48 kHz 24-bit, -131 ppm; the larger of two "
              "runs")
        print(f"| repair | every core ({bench.cores}) | 1 core |")
        print("| --- | --- | --- |")
        rows = []

        def row(label, source, target, *options):
            """One row: every core, then the first core only."""
            args = [bench.driftfix, "process", source, out, "--to-frames", str(target), "-q", "-y", *options]
            every, one = timed(2, args).peak_mib, timed(2, args, pin=True).peak_mib
            print(f"| {label:<46} | {every:>7} | {one:>7} |")
            rows.append({"label": label, "everyCore": every, "oneCore": one})

        for engine in ("polyphase", "soxr", "libsamplerate"):
            for quality in ("fast", "medium", "best"):
                row(f"stereo, {engine}, {quality}", stereo, stereo_target, "--engine", engine, "--quality", quality)
        row("stereo, --method stretch", stereo, stereo_target, "--method", "stretch")
        row("stereo, --method stretch --engine soxr", stereo, stereo_target, "--method", "stretch", "--engine", "soxr")
        for engine in ("polyphase", "soxr", "libsamplerate"):
            row(f"six channels, {engine}, best", six, six_target, "--engine", engine, "--quality", "best")
        row("six channels, --method stretch", six, six_target, "--method", "stretch")
    bench.record("memory.json", {"cores": bench.cores, "rows": rows}, "BENCH_SECTIONS=memory scripts/bench.sh")


def converter_line(measurement):
    """One engine and quality of driftfix-bench converters' JSON: its SNR per band (in the bands' order) and its
    in-memory speed."""
    bands = " / ".join(f"{value:.1f}" for _, value in sorted(measurement["snr"].items()))
    return (f"{measurement['engine']:>14} {measurement['quality']:>6}: {bands} dB, "
            f"{measurement['realtime']:.0f}x realtime")


@section("converters", "every engine at every quality: SNR against the ideal and in-memory speed, one core")
def converters(bench):
    # SNR against the analytic multi-tone ideal (tones up to 0.30, 0.40 and 0.45 of the rate, 20 s at -131 ppm, float
    # output) and the converter's own speed in memory, pinned to one core. The tool prints the results file's JSON;
    # the docs' converter table and the sentences around it are generated from it.
    print("\n## Converters: SNR against the ideal and in-memory speed, one core")
    text = output([bench.tool, "converters", "--seconds", "20", "--speed-seconds", "60"], pin=True)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BenchError(f"driftfix-bench converters printed no JSON ({error}): {text[:200]!r}") from None
    for measurement in data["measurements"]:
        print(converter_line(measurement))
    bench.record("converters.json", data, "BENCH_SECTIONS=converters scripts/bench.sh")


@section("engines", "each engine against sox and ffmpeg on one core, at each file length",
         sizes='BENCH_ENGINE_SECONDS="600 3600"')
def engines(bench):
    # One core for everything, files on tmpfs when there is one (the CPU's cost, not the disk's), each command three
    # times, the median; SNR against the analytically known ideal over the whole file (driftfix-bench snr: a timing
    # error counts as noise), and the lag left at the start and at the end.
    lengths = bench.setting("ENGINE_SECONDS", "600 3600")
    has_ffmpeg = shutil.which("ffmpeg") is not None
    rows = []
    with bench.scratch("engines") as scratch:
        out = os.path.join(scratch, "o.wav")
        for length in (int(word) for word in lengths.split()):
            source = os.path.join(scratch, f"engines-{length}.wav")
            run_once([bench.tool, "generate", source, "--seconds", str(length)])
            frames = length * 48000
            target = frames_at(frames, RATIO)
            print(f"\n## Resampling engines on one core: {length} s, 48 kHz stereo 24-bit WAV, -131 ppm ({frames} -> "
                  f"{target} frames); median of 3")
            print(f"{'command':<48} {'xRT':>8} {'x sox':>7} {'peak MiB':>9} {'SNR dB':>8} {'lag start':>10} "
                  f"{'lag end':>10} {'off':>6}")
            wall = {}

            def row(label, args, pin=True):
                remove(out)
                runs = timed(3, args, pin=pin)
                median = runs.wall.median
                wall[label] = median
                db, lag_start, lag_end, off = snr(bench, out, frames, target)
                against = f"{wall['sox speed'] / median:.2f}" if "sox speed" in wall else "-"
                print(f"{label:<48} {length / median:8.0f} {against:>7} {runs.peak_mib:>9} {db:>8} {lag_start:>10} "
                      f"{lag_end:>10} {off:>6}")
                rows.append({"seconds": length, "label": label, "wall": median, "peakMiB": runs.peak_mib,
                             "snrDB": db, "lagStart": lag_start, "lagEnd": lag_end, "framesOff": off})
                remove(out)

            process = [bench.driftfix, "process", source, out, "--to-frames", str(target)]
            # sox's speed factor: input length over output length, to the frame.
            row("sox speed", ["sox", source, out, "speed", f"{frames / target:.15f}"])
            row("driftfix process (the default: auto, medium)", process + ["-q", "-y"])
            for quality in ("fast", "medium", "best"):
                row(f"driftfix process --engine soxr --quality {quality}",
                    process + ["--engine", "soxr", "--quality", quality, "-q", "-y"])
            row("driftfix process --engine libsamplerate (medium)", process + ["--engine", "libsamplerate", "-q", "-y"])

            def ffmpeg(resampler):
                return ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", source, "-af",
                        FFMPEG_EXACT.format(resampler), "-c:a", "pcm_s24le", out]

            if has_ffmpeg:
                for resampler in ("swr", "soxr"):
                    row(f"ffmpeg asetrate/aresample exact ({resampler})", ffmpeg(resampler))
            # The whole machine: the default uses every core on the one file (--threads, cut into chunks joined as
            # one pass).
            row("driftfix process (default) on every core", process + ["-q", "-y"], pin=False)
            if has_ffmpeg:
                row("ffmpeg asetrate/aresample exact (swr), unpinned", ffmpeg("swr"), pin=False)
            # Each converter alone in memory (at most the first 600 s), against its pipeline's speed above.
            raw_length = min(length, 600)
            for engine in ("libsamplerate", "soxr"):
                raws = [float(output([bench.tool, "raw", source, "--seconds", str(raw_length), "--engine", engine,
                                      "--quality", "medium"], pin=True)) for _ in range(3)]
                raw = Spread.of(raws).median
                label = ("driftfix process --engine libsamplerate (medium)" if engine == "libsamplerate"
                         else f"driftfix process --engine {engine} --quality medium")
                print(f"{engine} medium converter alone (in memory, first {raw_length} s): {raw} xRT; the pipeline "
                      f"runs at {length / wall[label] / raw:.2f}x of it")
                rows.append({"seconds": length, "converter": engine, "realtime": raw, "pipeline": label})
            remove(source)
    print("xRT: seconds of audio per wall second on one core. SNR: against the ideal signal over the whole file. lag: "
          "frames\nbehind the ideal over the first and last 10 s. off: frames off the exact target length.")
    bench.record("engines.json", {"rows": rows},
                 f'BENCH_SECTIONS=engines BENCH_ENGINE_SECONDS="{lengths}" scripts/bench.sh')


@dataclasses.dataclass(frozen=True)
class Measured:
    """One run of a pipeline on the long input: its run, its speed (seconds of audio per wall second), its peak MiB
    (to a tenth) and the table line saying the three."""
    run: object
    xrt: float
    peak_mib: float
    line: str


def measure(bench, label, args):
    """Runs ARGS once (unpinned): "LABEL xRT peakMiB" of BENCH_SECONDS of input, as the resample and AAC tables show
    it. A failure says which pipeline failed."""
    try:
        run = run_once(args)
    except BenchError as error:
        raise BenchError(f"{label} failed: {error}") from None
    xrt, peak = bench.seconds / run.wall, run.peak_kib / 1024
    return Measured(run, xrt, peak, f"{label:<34} {xrt:9.1f} {peak:11.1f}")


def found_frames(line):
    """The frames `driftfix verify FILE --frames N` found, from its line ("o.wav: 1439811 frames found, 0 expected,
    difference 1439811: MISMATCH")."""
    match = re.search(r": (\d+) frames found", line)
    if not match:
        raise BenchError(f"driftfix verify printed no frame count: {line.strip()!r}")
    return int(match.group(1))


@section("resample", "the resample repair of the long input at each quality against sox and ffmpeg",
         sizes="BENCH_SECONDS=3600")
def resample(bench):
    # Each quality's pipeline (the converter on one core, file I/O overlapped on another) against the same converter
    # on the first 300 s held in memory, then sox's and ffmpeg's own recipes; nothing pinned.
    source, out = bench.input_wav, bench.path("out.wav")
    raw_seconds = min(bench.seconds, 300)
    print(f"\n## Resample repair: {bench.seconds} s, 48 kHz stereo 24-bit WAV, ratio {RATIO} (converter on one core, "
          "file I/O overlapped on another)")
    print(f"{'pipeline':<34} {'xRT':>9} {'peak MiB':>11} {'raw xRT':>10} pipeline/raw")
    for quality in ("best", "medium", "fast"):
        remove(out)
        measured = measure(bench, f"driftfix process --quality {quality}",
                           [bench.driftfix, "process", source, out, "--ratio", str(RATIO), "--quality", quality, "-q"])
        raw = output([bench.tool, "raw", source, "--seconds", str(raw_seconds), "--quality", quality, "--ratio",
                      str(RATIO)]).strip()
        print(f"{measured.line} {raw:>10} {measured.xrt / float(raw):.2f}")
    # The last output is whole and readable: verify it against the length it reports (a --frames 0 check fails by
    # design, it is only asked for the count).
    counted = run_once([bench.driftfix, "verify", out, "--frames", "0"], capture=True, check=False)
    run_once([bench.driftfix, "verify", out, "--frames", str(found_frames(counted.stdout))])
    if shutil.which("sox"):
        copy = bench.path("sox.wav")
        remove(copy)
        print(measure(bench, f"sox speed {SPEED} (varispeed)", ["sox", source, copy, "speed", str(SPEED)]).line)
        remove(copy)
    if shutil.which("ffmpeg"):
        copy = bench.path("ffmpeg.wav")
        remove(copy)
        print(measure(bench, "ffmpeg asetrate/aresample (exact)",
                      ["ffmpeg", "-nostdin", "-loglevel", "error", "-i", source, "-af", FFMPEG_DEFAULT, "-c:a",
                       "pcm_s24le", copy]).line)
        remove(copy)
    remove(out)
    print(f"\nraw xRT: the same converter on the first {raw_seconds} s held in memory (no file I/O).")


def decoded_frames(path):
    """The frames ffmpeg decodes PATH to (mono 32-bit float, counted as it streams: an hour is 690 MB)."""
    process = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-ac", "1", "-"],
                               stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    count = 0
    while chunk := process.stdout.read(1 << 20):
        count += len(chunk)
    if process.wait() != 0:
        raise BenchError(f"ffmpeg could not decode {path} (exit {process.returncode})")
    return count // 4


PHASE = re.compile(r"^(.+?)\s+([\d.]+) s\s+([\d.]+)%\s+([\d.]+) xRT$")


def media_phases(text):
    """The phases of driftfix-bench media's table: each line "PHASE  SECONDS s  SHARE%  XRT xRT" (the sum of phases
    included), as {"phase", "seconds", "share"}; other lines are ignored."""
    shares = []
    for line in text.splitlines():
        match = PHASE.match(line.strip())
        if match:
            shares.append({"phase": match.group(1), "seconds": float(match.group(2)), "share": float(match.group(3))})
    return shares


@section("aac", "compressed repair: AAC in .m4a, one pass and in segments against ffmpeg, then each phase alone",
         sizes="BENCH_SECONDS=3600")
def aac(bench):
    # Each pipeline, the decoded lengths and the phases go to aac.json (performance.md's compressed-repair tables and
    # the sentences after them are generated from it).
    print(f"\n## Compressed repair: {bench.seconds} s, AAC 192 kb/s stereo in .m4a (made by ffmpeg), ratio {RATIO}, "
          "medium quality")
    source = bench.path(f"in-{bench.seconds}s.m4a")
    if not os.path.exists(source):
        run_once(["ffmpeg", "-nostdin", "-loglevel", "error", "-i", bench.input_wav, "-c:a", "aac", "-b:a", "192k",
                  source])
    out, ffmpeg_out, phases_out = bench.path("out.m4a"), bench.path("ffmpeg.m4a"), bench.path("phases.m4a")
    rows = []

    def row(label, args):
        measured = measure(bench, label, args)
        print(measured.line)
        rows.append({"label": label, "wall": measured.run.wall, "peakMiB": round(measured.peak_mib, 1)})

    print(f"{'pipeline':<34} {'xRT':>9} {'peak MiB':>11}")
    process = [bench.driftfix, "process", source, out, "--ratio", str(RATIO)]
    remove(out)
    row("driftfix process (aac in m4a)", process + ["-q"])
    one_pass = decoded_frames(out)
    remove(out)
    row("driftfix process --parallel-encode", process + ["--parallel-encode", "-q"])
    segmented = decoded_frames(out)
    target = frames_at(bench.seconds * 48000, RATIO)
    print(f"   ffmpeg decodes driftfix's outputs to {one_pass} and {segmented} frames (target: {target})")
    remove(out, ffmpeg_out)
    # ffmpeg's exact-rate trick, re-encoding AAC; its length is what its resampler and AAC padding make it.
    row("ffmpeg asetrate/aresample -c:a aac", ["ffmpeg", "-nostdin", "-loglevel", "error", "-i", source, "-af",
                                               FFMPEG_DEFAULT, "-c:a", "aac", "-b:a", "192k", ffmpeg_out])
    ffmpeg_frames = decoded_frames(ffmpeg_out)
    print(f"   ffmpeg's own output decodes to {ffmpeg_frames} frames")
    remove(ffmpeg_out)
    print("time per phase, each run alone on one core:")
    remove(phases_out)
    table = output([bench.tool, "media", source, "--ratio", str(RATIO), "--output", phases_out])
    remove(phases_out)
    print(table, end="" if table.endswith("\n") else "\n")
    bench.record("aac.json", {"seconds": bench.seconds, "ratio": RATIO, "rows": rows,
                              "frames": {"target": target, "driftfix": one_pass, "parallel": segmented,
                                         "ffmpeg": ffmpeg_frames},
                              "phases": media_phases(table)},
                 "BENCH_SECTIONS=aac scripts/bench.sh")
