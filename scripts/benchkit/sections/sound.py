"""Measuring and syncing by the sound: content measurement against known truths and its speed (content), the
landmark index against the hours indexed (soundindex), prints, the search and a generated shoot synced end to end
(sync), real songs played back and synced (music), a sound-paired night and the same night unchanged (soundnight),
the README's tour from scripts/demo.sh (tour), and MP4/MOV reference durations, the own parser against libavformat
(movieprobe)."""
import glob
import json
import os
import re
import subprocess
import sys

from ..core import ROOT, BenchError, Spread, figures, remove, run_once, shown
from . import section


def json_output(run, what):
    """The JSON object a run wrote on stdout (a sync's groups); a run that wrote none failed to say anything."""
    try:
        return json.loads(run.stdout)
    except ValueError:
        raise BenchError(f"{what} exited {run.status} without its JSON on stdout") from None


# ---- content --------------------------------------------------------------------------------------------------------


def table_lines(text):
    """The Markdown table rows of a tool's output: the lines that start with '|' (content-accuracy's table)."""
    return [line.rstrip("\n") for line in text.splitlines() if line.startswith("|")]


@section("content", "content measurement and repair against known truths; `driftfix measure`'s speed on one core",
         sizes="BENCH_SECONDS=3600 (the long cases only at 3600 or more)")
def content(bench):
    # The accuracy table and the speed rows go to content.json (docs/measuring-by-sound.md's table and the sentences
    # after it are generated from it).
    print("\n## Content measurement and repair against known truths")
    print("Recording: a close stereo 24-bit microphone on a faulty clock; reference: a distant, reverberant, noisier")
    print("microphone coded as AAC 96 kb/s by ffmpeg. Each pair measured, repaired by content, proved in sync; "
          "'independent")
    print("check': the output against the scene rendered on a perfect clock, by direct correlation (no driftfix "
          "code).\n")
    folder = bench.path("content")
    os.makedirs(folder, exist_ok=True)
    # The long cases only at the full hour's size.
    accuracy = shown([bench.tool, "content-accuracy", "--folder", folder,
                    "--long", "true" if bench.seconds >= 3600 else "false"])
    print(f"\n## Content measurement speed and memory: one core, `driftfix measure` on a pair of {bench.seconds} s")
    print(f"{'pair':<34} {'xRT':>9} {'peak MiB':>11}")
    recording, reference, coded = (os.path.join(folder, name)
                                   for name in ("speed-rec.wav", "speed-ref.wav", "speed-ref.m4a"))
    remove(recording, reference, coded)
    run_once([bench.tool, "content-pair", recording, reference, "--seconds", str(bench.seconds), "--offset", "0.3",
              "--drift", "-20", "--seed", "31"])
    run_once(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", reference, "-c:a", "aac", "-b:a", "96k", coded])
    speed = []
    for label, against in (("WAV 24-bit stereo vs WAV reference", reference),
                           ("WAV 24-bit stereo vs AAC reference", coded)):
        # One run each, as the shell's `measure` did.
        run = run_once([bench.driftfix, "measure", recording, against, "--format", "json"], pin=True)
        realtime, peak = bench.seconds / run.wall, run.peak_kib / 1024
        print(f"{label:<34} {realtime:9.1f} {peak:11.1f}")
        speed.append({"label": label, "realtime": realtime, "peakMiB": peak})
    remove(recording, reference, coded)
    bench.record("content.json", {"seconds": bench.seconds, "table": table_lines(accuracy), "speed": speed},
                 "BENCH_SECTIONS=content scripts/bench.sh")


# ---- soundindex -----------------------------------------------------------------------------------------------------


@section("soundindex", "the landmark index against the hours indexed: its size, lookup and search of a clip",
         sizes="BENCH_INDEX_HOURS=1,10,100,1000 BENCH_INDEX_CLIPS=30")
def soundindex(bench):
    # Synthesised prints; the search of every recording up to 100 hours. Its table goes to soundindex.json as printed
    # (the docs' copy and the sentences after it are generated; the sync section's day is extrapolated from it).
    print("\n## The landmark index against the hours indexed")
    hours, clips = bench.setting("INDEX_HOURS", "1,10,100,1000"), bench.setting("INDEX_CLIPS", "30")
    table = shown([bench.tool, "soundindex", "--hours", hours, "--clips", clips, "--repeats", "3"])
    bench.record("soundindex.json", {"table": table.splitlines()},
                 f"driftfix-bench soundindex --hours {hours} --clips {clips} --repeats 3 "
                 "(BENCH_SECTIONS=soundindex scripts/bench.sh)")
    # The docs' figure, from the real results only: a trial run's figure goes to the work folder.
    real = os.path.abspath(bench.results) == os.path.abspath(figures.RESULTS)
    figure = os.path.join(ROOT, "docs", "images", "soundindex-growth.svg") if real else \
        bench.path("soundindex-growth.svg")
    run_once([sys.executable, os.path.join(ROOT, "scripts", "plot-soundindex.py"),
              os.path.join(bench.results, "soundindex.json"), figure], cwd=ROOT)


# ---- sync -----------------------------------------------------------------------------------------------------------


PRINTED = re.compile(r"([\d.]+) s of sound in ([\d.]+) s")


def prints(text):
    """driftfix-bench soundmatch --file F --clips 0: each '... S s of sound in W s ...' as {sound, wall} seconds."""
    return [{"sound": float(m.group(1)), "wall": float(m.group(2))} for m in PRINTED.finditer(text)]


def sync_matches(report):
    """Every match of a `driftfix sync --format json` report, its groups flattened."""
    return [match for group in report["groups"] for match in group["matches"]]


def score_shoot(truth, report):
    """A sync of a generated shoot against its truth (truth.json's clips, paths made absolute by the caller): places
    right (a recording that heard the clip for at least half of it), wrong (any other), missed; the worst start
    error (ms), clip drift error and recorder drift error (ppm, its clips pooled), and the worst residual of the cut
    clips (ms). Uncertain matches are listed by sync, not counted here."""
    found = sync_matches(report)
    right = wrong = missed = 0
    start_errors, drift_errors, pooled_errors, residuals = [], [], [], []
    for clip in truth:
        rows = [m for m in found if m["reference"] == clip["reference"] and m["status"] != "uncertain"]
        expected = {h["recording"]: h for h in clip["heardBy"] if h["coverage"] >= 0.5}
        for m in rows:
            heard = expected.get(m["recording"])
            if heard is None:
                wrong += 1
                continue
            right += 1
            start_errors.append(abs(m["recordingStartSeconds"] - heard["recordingStartSeconds"]) * 1000)
            drift_errors.append(abs(m["content"]["driftPPM"] - heard["driftPPM"]))
            if m.get("recordingDriftPPM") is not None:
                pooled_errors.append(abs(m["recordingDriftPPM"] - heard["driftPPM"]))
            if m.get("output") and m["content"].get("residualMs") is not None:
                residuals.append(m["content"]["residualMs"])
        missed += len(set(expected) - {m["recording"] for m in rows})
    return {"right": right, "wrong": wrong, "missed": missed, "startErrorMs": max(start_errors, default=None),
            "driftErrorPPM": max(drift_errors, default=None), "recorderDriftErrorPPM": max(pooled_errors, default=None),
            "residualMs": max(residuals, default=None)}


def absolute_truth(truth):
    """truth.json's clips with absolute paths: the generator wrote the paths it was given; sync reports absolute
    ones."""
    for clip in truth:
        clip["reference"] = os.path.abspath(clip["reference"])
        for heard in clip["heardBy"]:
            heard["recording"] = os.path.abspath(heard["recording"])
    return truth


@section("sync", "sync by sound: a recorder-hour printed on one core, the search, a generated shoot synced end to end",
         sizes="BENCH_SYNC_SECONDS=3600 BENCH_SYNC_CLIPS=24 BENCH_SYNC_SEARCH_CLIPS=1000 BENCH_SYNC_SEARCH_HOURS=50",
         brings=("soundindex",))  # the docs' day by sound is made of both
def sync(bench):
    # A recorder-hour printed on one core, and a generated shoot synced end to end, go to sync.json (performance.md's
    # sync table and the day extrapolated from it and the soundindex table are generated).
    print("\n## Sync by sound: prints, the search, and a generated shoot (BENCH_SYNC_SECONDS of recorder, "
          "BENCH_SYNC_CLIPS clips)")
    seconds, clips = bench.number("SYNC_SECONDS", 3600), bench.number("SYNC_CLIPS", 24)
    search_clips, search_hours = bench.setting("SYNC_SEARCH_CLIPS", "1000"), bench.setting("SYNC_SEARCH_HOURS", "50")
    source = bench.path("sync-print.wav")
    if not os.path.exists(source):
        run_once([bench.tool, "generate", source, "--seconds", "600"])
    # One core: what a worker's print costs per file, three runs warm.
    printed = "".join(shown([bench.tool, "soundmatch", "--file", source, "--clips", "0"], pin=True) for _ in range(3))
    search = [bench.tool, "soundmatch", "--clips", search_clips, "--hours", search_hours, "--recordings", "50"]
    shown(search)
    # The same clips with every recording searched (onset-like noise: the index steps aside, at a small cost).
    shown(search + ["--exhaustive-search"])
    shoot = bench.path(f"shoot-{seconds}-{clips}")
    if not os.path.exists(os.path.join(shoot, "truth.json")):
        shown([bench.tool, "shoot", shoot, "--seconds", str(seconds), "--clips", str(clips)])
    # Three runs listing the places, three cutting the clips too (--out); the last cut is checked against the truth.
    cut = bench.path("shoot-out")
    runs, report = [], None
    for out in (False, True) * 3:
        remove(cut)
        run = run_once([bench.driftfix, "sync", shoot, *(["--out", cut] if out else []), "--format", "json"],
                       capture=True, check=False)
        # A failed run (exit 2 or above; 1 is a clip left for a person) keeps its time, marked: the table counts them.
        runs.append({"out": out, "exit": run.status, "wall": run.wall, "peakKiB": run.peak_kib})
        print(f"{'out' if out else '   '} {run.status} {run.wall:.2f} {run.peak_kib}")
        if out:
            report = run
    with open(os.path.join(shoot, "truth.json")) as handle:
        truth = absolute_truth(json.load(handle)["clips"])
    places = score_shoot(truth, json_output(report, "driftfix sync --out"))
    remove(cut)
    print(f"matches right {places['right']}, wrong {places['wrong']}, missed {places['missed']} (uncertain ones are "
          "listed, not counted)")
    bench.record("sync.json", {"prints": prints(printed), "shoot": {
        "seconds": float(seconds), "clips": clips + 1, "recorderSeconds": seconds + seconds / 2 + 120, "runs": runs,
        **places}}, f"BENCH_SECTIONS=sync scripts/bench.sh (BENCH_SYNC_SECONDS={seconds} BENCH_SYNC_CLIPS={clips})")


# ---- music ----------------------------------------------------------------------------------------------------------


MUSIC_CASES = ("excerpts", "takes", "takes --clocks", "twice", "loop")


def score_music(truth, report):
    """A sync of a song's playback case against its truth: each clip right (every place it was used at is the
    scene's, within 1 ms), wrong (used anywhere else) or left for a person (not used); the worst start error (s) of
    the right ones."""
    found = sync_matches(report)
    right = wrong = left = 0
    worst = 0.0
    for clip in truth:
        heard = {os.path.abspath(h["recording"]): h["recordingStartSeconds"] for h in clip["heardBy"]}
        used = [m for m in found if m["reference"] == os.path.abspath(clip["reference"])
                and m["status"] in ("used", "alternative")]
        if not used:
            left += 1
            continue
        errors = [abs(m["recordingStartSeconds"] - heard[m["recording"]]) if m["recording"] in heard else 1e9
                  for m in used]
        if max(errors) < 0.001:
            right += 1
            worst = max(worst, max(errors))
        else:
            wrong += 1
    return right, wrong, left, worst


@section("music", "real songs (Tests/Music) played back, heard by a room recorder and a line feed, synced by sound")
def music(bench):
    print("\n## Music by sound: real songs (Tests/Music, CC BY) played back and heard by a room recorder and a line "
          "feed")
    print("   per case: clips right (used at the scene's place), wrong (used anywhere else), left for a person; the "
          "sure answer")
    print("   for 'twice' and 'loop' is 'left' (the same sound at two places or more, nothing to tell them apart)")
    print(f"{'song, case':<34} {'clips':>6} {'right':>6} {'wrong':>6} {'left':>6} {'worst start':>12} {'time s':>8}")
    rows = []
    for song in sorted(glob.glob(os.path.join(ROOT, "Tests", "Music", "*.ogg"))):
        name = os.path.basename(song)[:-len(".ogg")]
        for spec in MUSIC_CASES:
            case = bench.path(f"music-{name}-{spec.replace(' ', '')}")
            if not os.path.exists(os.path.join(case, "truth.json")):
                run_once([bench.tool, "playback", case, "--song", song, "--case", *spec.split()])
            # Exit 1 when a clip is left for a person: the sure answer of some cases.
            run = run_once([bench.driftfix, "sync", case, "--format", "json"], capture=True, check=False)
            with open(os.path.join(case, "truth.json")) as handle:
                truth = json.load(handle)["clips"]
            right, wrong, left, worst = score_music(truth, json_output(run, f"driftfix sync {case}"))
            print(f"{f'{name[:18]}, {spec}':<34} {len(truth):6d} {right:6d} {wrong:6d} {left:6d} "
                  f"{worst * 1000:9.3f} ms {run.wall:8.2f}")
            rows.append({"song": name, "case": spec, "clips": len(truth), "right": right, "wrong": wrong, "left": left,
                         "worstMs": worst * 1000 if right else None, "seconds": run.wall})
    # measuring-by-sound.md's table is generated from it.
    bench.record("music.json", {"rows": rows}, "BENCH_SECTIONS=music scripts/bench.sh")


# ---- soundnight -----------------------------------------------------------------------------------------------------


def repaired_nothing(summary):
    """Whether `driftfix repair`'s stdout says a night repaired nothing: a line starting '0 repaired,'."""
    return any(line.startswith("0 repaired,") for line in summary.splitlines())


def last_line(text):
    lines = text.rstrip("\n").splitlines()
    return lines[-1] if lines else ""


@section("soundnight", "a night paired by sound (repair --pair-by sound), then the same night unchanged (printed only)",
         sizes="BENCH_NIGHT_CLIPS=200 BENCH_NIGHT_SECONDS=2400")
def soundnight(bench):
    print("\n## A sound night, then the same night unchanged (repair --pair-by sound, a local worker per core, the "
          "journal in OUT)")
    print("   the demo's shoot (4 clips, 240 s of recorder at 48 kHz), then BENCH_NIGHT_CLIPS clips (16 kHz recorders)")
    print(f"{'shoot':<36} {'first s':>10} {'unchanged s':>14} {'unchanged/first':>10}")
    out = bench.path("night-out")
    for clips, seconds, rate in ((4, 240, 48000), (bench.number("NIGHT_CLIPS", 200),
                                                   bench.number("NIGHT_SECONDS", 2400), 16000)):
        shoot = bench.path(f"night-{clips}-{seconds}-{rate}")
        if not os.path.exists(os.path.join(shoot, "truth.json")):
            run_once([bench.tool, "shoot", shoot, "--clips", str(clips), "--seconds", str(seconds), "--rate",
                      str(rate)])
        remove(out)
        # Exit 1 when a clip could not be synced (each failure is said in the log and tried again every night).
        night = [bench.driftfix, "repair", shoot, "--out", out, "--pair-by", "sound"]
        first = run_once(night, check=False).wall
        # The unchanged night, three times: the median.
        unchanged = [run_once(night, capture=True, check=False) for _ in range(3)]
        again = Spread.of([run.wall for run in unchanged]).median
        summary = unchanged[-1].stdout
        if not repaired_nothing(summary):
            print(f"the unchanged night repaired something: {last_line(summary)}", file=sys.stderr)
        print(f"{f'{clips + 1} clips, {seconds} s at {rate} Hz':<36} {first:10.2f} {again:14.2f} "
              f"{100 * again / first:9.1f} %")
        print(f"   (the last unchanged night: {last_line(summary)})")
    remove(out)


# ---- tour -----------------------------------------------------------------------------------------------------------


def tour_outputs(text):
    """From scripts/demo.sh's output, what the README shows: the one-file edit's line ('... -> ... realtime)'), the
    measurement of interview/take08 by the sound (its lines up to the next measurement or '=='), the proof of sync
    of the file repaired by the sound, and the fleet's history (the lines after '== driftfix history', up to the
    first unindented one or a recorder that started late). Indented lines lose their three spaces."""
    lines = text.split("\n")

    def after(heading, stop):
        start = next(i for i, line in enumerate(lines) if line.startswith(heading)) + 1
        end = next(i for i in range(start, len(lines)) if stop(lines[i]))
        return [line[3:] if line.startswith("   ") else line for line in lines[start:end]]

    def measured(name):
        start = next(i for i, line in enumerate(lines) if re.search(rf"{name}\.wav against the sound of", line))
        end = next(i for i in range(start + 1, len(lines))
                   if "against the sound of" in lines[i] or lines[i].startswith("=="))
        return [line[3:] for line in lines[start:end]]

    return {
        "process": next(line for line in lines if " -> " in line and line.endswith("realtime)")),
        "measure": measured("interview/take08"),
        "verifySync": next(line for line in lines if "repaired-by-sound/interview/take08.wav: residual lag" in line),
        "history": after("== driftfix history",
                         lambda line: not line.startswith("   ") or re.match(r"   \w.*, started late", line)),
    }


@section("tour", "the README's tour: the outputs of scripts/demo.sh, as it printed them")
def tour(bench):
    # The README shows what the demo's commands print (a one-file edit, a measurement by the sound, a proof of sync,
    # a fleet's history); they go to tour.json from this run, never copied by hand.
    print("\n## The README's tour: the outputs of scripts/demo.sh, as it printed them")
    log = bench.path("tour.log")
    with open(log, "w") as handle:
        status = subprocess.run([os.path.join(ROOT, "scripts", "demo.sh")], stdout=handle, stdin=subprocess.DEVNULL,
                                cwd=ROOT).returncode
    if status:
        raise BenchError(f"scripts/demo.sh exited {status} (its output: {log})")
    with open(log) as handle:
        text = handle.read()
    try:
        outputs = tour_outputs(text)
    except StopIteration:
        raise BenchError(f"scripts/demo.sh's output ({log}) lacks a line the README shows") from None
    bench.record("tour.json", outputs, "BENCH_SECTIONS=tour scripts/bench.sh (scripts/demo.sh)")


# ---- movieprobe -----------------------------------------------------------------------------------------------------


MOVIE_RUN = re.compile(r"(\d+) MP4/MOV references: own box parser ([\d.]+) s .*?libavformat ([\d.]+) s .*?"
                       r"disagreeing: (\d+)")


def movie_runs(text):
    """driftfix-bench movieprobe's line 'N MP4/MOV references: own box parser S s ... libavformat S s ...
    disagreeing: D' of each run, as {files, own, libavformat, disagreeing}."""
    return [{"files": int(m.group(1)), "own": float(m.group(2)), "libavformat": float(m.group(3)),
             "disagreeing": int(m.group(4))} for m in MOVIE_RUN.finditer(text)]


@section("movieprobe", "MP4/MOV reference durations: scan's own box parser against libavformat",
         sizes="BENCH_MOVIE_FILES=20000")
def movieprobe(bench):
    # scan reads .mp4/.mov/.m4v references with its own parser and every other container through libavformat.
    # Three runs; performance.md's table is generated from movieprobe.json.
    print("\n## MP4/MOV reference durations: the own box parser against libavformat (BENCH_MOVIE_FILES files, 3 "
          "shapes)")
    files = bench.setting("MOVIE_FILES", "20000")
    text = "".join(shown([bench.tool, "movieprobe", bench.path(f"movies-{files}"), "--files", files])
                   for _ in range(3))
    runs = movie_runs(text)
    if len(runs) != 3:
        raise BenchError(f"driftfix-bench movieprobe printed {len(runs)} results for 3 runs")
    bench.record("movieprobe.json", {"runs": runs}, "BENCH_SECTIONS=movieprobe scripts/bench.sh")
