#!/usr/bin/env python3
"""How well pitch-preserving time-stretches sound, side by side.

Materials are rendered from scores twice: at their own pace, and at the pace an ideal stretch by r would give
(pitch contours, formants and envelopes following time x r; drum hits moved, their shape kept). Each tool stretches
the first rendering to the second's exact length; ViSQOL (audio mode, MOS-LQO 1..5, higher is better) scores it
against the ideal, and PESQ (wide band, 16 kHz) too for speech. Real songs are scored by round trip (r, then 1/r)
against the original. Nothing here uses driftfix's DSP: the scores are this script's, the ideal is rendered, the
peers are Rubber Band (R2 and R3) and sox.

    stretch-quality.py render DIR              the materials and their ideals, as WAV files
    stretch-quality.py score --driftfix BIN    the table (and --json FILE): every tool, material and ratio
    stretch-quality.py markdown FILE.json      a score run's tables as Markdown (docs/performance.md's)
    stretch-quality.py check --driftfix BIN    the floors the tests hold: driftfix's phase vocoder at or above
                                               each, its WSOLA below (so that each floor says something)

Tools: driftfix (its automatic choice), driftfix:vocoder and driftfix:wsola (one engine), R2 and R3 (Rubber Band's
engines), sox (tempo).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import soundfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figures  # noqa: E402  (the tables' renderer and the machine's description, shared with the docs)

RATE = 48_000
SECONDS = 8.0
RATIOS = [0.5, 0.8, 0.97, 1.03, 1.25, 2.0]
MATERIALS = ["voice", "piano", "drums", "mixture"]
SONGS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Music")


# ---- scores ------------------------------------------------------------------------------------------------------


def voice(r, seed=3):
    """Syllables of a voice: a glottal source whose f0 glides, through three formants that move from vowel to vowel,
    with noisy consonants and pauses. Every time in the score is multiplied by r; pitch and formants are not."""
    rng = np.random.default_rng(seed)
    n = int(SECONDS * r * RATE)
    out = np.zeros(n)
    t = 0.15
    vowels = [(730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480), (570, 840, 2410)]
    while t < SECONDS - 0.4:
        length = rng.uniform(0.14, 0.32)
        f0a, f0b = rng.uniform(95, 180), rng.uniform(95, 180)
        va, vb = vowels[rng.integers(len(vowels))], vowels[rng.integers(len(vowels))]
        start, count = int(t * r * RATE), int(length * r * RATE)
        if start + count >= n:
            break
        u = np.arange(count) / count  # 0..1 along the syllable, the same for every r
        f0 = f0a + (f0b - f0a) * u
        phase = 2 * np.pi * np.cumsum(f0) / RATE
        formants = [(va[k] + (vb[k] - va[k]) * u) for k in range(3)]
        env = np.minimum(1, u * length / 0.02) * np.minimum(1, (1 - u) * length / 0.04)
        syllable = np.zeros(count)
        for h in range(1, 60):
            freq = h * f0
            audible = freq < 9000
            if not audible.any():
                break
            gain = np.zeros(count)
            for k, fk in enumerate(formants):
                bw = 60 + 40 * k
                gain += (1.0 / (1 + ((freq - fk) / bw) ** 2)) * (0.9 ** k)
            syllable += np.where(audible, gain * np.sin(h * phase) / h ** 0.7, 0)
        out[start:start + count] += 0.25 * env * syllable
        # A consonant (noise, high) before some syllables; its length follows the tempo as every envelope does.
        consonant, consonant_length, consonant_seed = rng.random(), rng.uniform(0.03, 0.07), rng.integers(1 << 30)
        if consonant < 0.5:
            c = int(consonant_length * r * RATE)
            noise = np.random.default_rng(consonant_seed).standard_normal(c)
            noise = np.diff(noise, prepend=0)  # a high tilt
            cs = max(0, start - c)
            out[cs:cs + c] += 0.05 * noise[: min(c, n - cs)] * np.hanning(c)[: min(c, n - cs)]
        t += length + (rng.uniform(0.25, 0.6) if rng.random() < 0.2 else rng.uniform(0.02, 0.08))
    return out


def piano(r, seed=5):
    """Chords of struck strings: slightly inharmonic partials, each decaying at its own rate; onsets and decays follow
    time x r."""
    rng = np.random.default_rng(seed)
    n = int(SECONDS * r * RATE)
    out = np.zeros(n)
    t = 0.1
    while t < SECONDS - 0.5:
        root = rng.integers(40, 60)
        for step in (0, 4, 7, 12) if rng.random() < 0.6 else (0, 3, 7, 10):
            f0 = 440 * 2 ** ((root + step - 49) / 12)
            start = int((t + rng.uniform(0, 0.02)) * r * RATE)
            length = int(min(2.5, SECONDS - t) * r * RATE)
            if start + length > n:
                length = n - start
            if length <= 0:
                continue
            time_ = np.arange(length) / RATE / r  # score time
            note = np.zeros(length)
            for k in range(1, 25):
                fk = k * f0 * np.sqrt(1 + 0.0004 * k * k)
                if fk > 16000:
                    break
                decay = 1.6 / (1 + 0.35 * k)
                note += np.sin(2 * np.pi * fk * time_ * r + rng.uniform(0, 2 * np.pi)) * np.exp(-time_ / decay) / k
            attack = np.minimum(1, time_ / 0.003)
            out[start:start + length] += 0.08 * attack * note
        t += rng.choice([0.5, 0.75, 1.0])
    return out


def drums(r, seed=7):
    """A kit on a pattern: kick, snare and hats. Each hit lands at its time x r with its own shape (hits are not
    stretched)."""
    rng = np.random.default_rng(seed)
    n = int(SECONDS * r * RATE)
    out = np.zeros(n)
    def kick():
        tt = np.arange(int(0.25 * RATE)) / RATE
        f = 50 + 100 * np.exp(-tt / 0.03)
        return 0.6 * np.sin(2 * np.pi * np.cumsum(f) / RATE) * np.exp(-tt / 0.12)
    def snare():
        tt = np.arange(int(0.2 * RATE)) / RATE
        return (0.25 * rng.standard_normal(tt.size) * np.exp(-tt / 0.06)
                + 0.2 * np.sin(2 * np.pi * 200 * tt) * np.exp(-tt / 0.05))
    def hat():
        tt = np.arange(int(0.06 * RATE)) / RATE
        x = rng.standard_normal(tt.size)
        return 0.12 * np.diff(x, prepend=0) * np.exp(-tt / 0.015)
    beat = 0.25
    step = 0
    t = 0.05
    while t < SECONDS - 0.3:
        hits = [hat()]
        if step % 4 == 0:
            hits.append(kick())
        if step % 8 == 4:
            hits.append(snare())
        at = int(t * r * RATE)
        for h in hits:
            m = min(h.size, n - at)
            out[at:at + m] += h[:m]
        t += beat
        step += 1
    return out


def material(name, r):
    if name == "voice":
        return voice(r)
    if name == "piano":
        return piano(r)
    if name == "drums":
        return drums(r)
    return 0.6 * voice(r, seed=11) + 0.5 * piano(r, seed=13) + 0.5 * drums(r, seed=17)


def stereo(x):
    """Two channels: the mono score and a slightly delayed, filtered copy (a stereo image a stretch must keep)."""
    right = np.concatenate([np.zeros(12), x[:-12]]) * 0.9
    return np.stack([x, right], axis=1)


def write(path, x):
    peak = np.max(np.abs(x))
    soundfile.write(path, x / max(1.0, peak / 0.9), RATE, subtype="PCM_24")


def song(name, seconds=SECONDS):
    """An excerpt of a real song, at 48 kHz (sox resamples)."""
    source = os.path.join(SONGS_DIR, name)
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "s.wav")
        subprocess.run(["sox", source, "-r", str(RATE), "-b", "24", out, "trim", "20", str(seconds)], check=True)
        x, _ = soundfile.read(out)
    return x if x.ndim == 2 else stereo(x)


# ---- tools -------------------------------------------------------------------------------------------------------


def run_tool(tool, driftfix, source, target, frames, ratio):
    """Stretches `source` by `ratio` into `target`, exactly `frames` long (padded or cut where a tool misses)."""
    if tool.startswith("driftfix"):
        cmd = [driftfix, "process", source, target, "--method", "stretch", "--to-frames", str(frames), "-q", "-y"]
        if ":" in tool:
            cmd += ["--stretch-engine", tool.split(":")[1]]
    elif tool in ("R2", "R3"):
        # --centre-focus: the channels processed together, as driftfix does; without it Rubber Band stretches each
        # channel apart, and a stereo image with a 0.25 ms delay between its channels scores up to 1.2 lower.
        cmd = ["rubberband", "-q", "-2" if tool == "R2" else "-3", "--centre-focus", "-D", f"{frames / RATE:.9f}",
               source, target]
    else:
        cmd = ["sox", source, target, "tempo", f"{1 / ratio:.10f}"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    x, _ = soundfile.read(target)
    if x.shape[0] != frames:
        x = x[:frames] if x.shape[0] > frames else np.concatenate([x, np.zeros((frames - x.shape[0],) + x.shape[1:])])
        soundfile.write(target, x, RATE, subtype="PCM_24")
    return seconds


_visqol = None


def visqol(reference, degraded):
    global _visqol
    if _visqol is None:
        from visqol import VisqolApi
        _visqol = VisqolApi()
        _visqol.create(mode="audio")
    return float(_visqol.measure(reference, degraded).moslqo)


def pesq16(reference, degraded):
    from pesq import pesq
    import scipy.signal
    a, _ = soundfile.read(reference)
    b, _ = soundfile.read(degraded)
    a = a.mean(axis=1) if a.ndim == 2 else a
    b = b.mean(axis=1) if b.ndim == 2 else b
    a = scipy.signal.resample_poly(a, 1, 3)
    b = scipy.signal.resample_poly(b, 1, 3)
    return float(pesq(16000, a, b, "wb"))


def score(args):
    tools = args.tools.split(",")
    ratios = [float(r) for r in args.ratios.split(",")]
    materials = args.materials.split(",")
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for name in materials:
            song_case = name.startswith("song:")
            base = song(name[5:]) if song_case else stereo(material(name, 1.0))
            src = os.path.join(folder, "src.wav")
            write(src, base)
            for r in ratios:
                frames = int(round(base.shape[0] * r))
                ideal = os.path.join(folder, "ideal.wav")
                if not song_case:
                    write(ideal, stereo(material(name, r))[:frames])
                for tool in tools:
                    out = os.path.join(folder, f"{tool}.wav")
                    seconds = run_tool(tool, args.driftfix, src, out, frames, r)
                    if song_case:
                        back = os.path.join(folder, f"{tool}-back.wav")
                        seconds += run_tool(tool, args.driftfix, out, back, base.shape[0], 1 / r)
                        value = visqol(src, back)
                        speech = None
                    else:
                        value = visqol(ideal, out)
                        speech = pesq16(ideal, out) if name == "voice" else None
                    results.append({"material": name, "ratio": r, "tool": tool, "visqol": value, "pesq": speech,
                                    "seconds": seconds})
                    print(f"{name:14} x{r:<5} {tool:9} ViSQOL {value:.3f}" + (f"  PESQ {speech:.2f}" if speech else "")
                          + f"  {seconds:.2f} s", file=sys.stderr, flush=True)
    table(results, tools)
    if args.json:
        with open(args.json, "w") as f:
            # With its date, machine and command: the docs' tables are generated from it (scripts/figures.py).
            json.dump({"name": "stretch quality", "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                       "machine": figures.machine(), "command": "scripts/stretch-quality.py " + " ".join(sys.argv[1:]),
                       "rate": RATE, "seconds": SECONDS, "results": results}, f, indent=1)


# Cells where the phase vocoder scored clearly above WSOLA (docs/performance.md): each floor lies between the two, a
# few hundredths under the vocoder's measured score. Measured on 2026-11-29 (vocoder / WSOLA): drums x0.5
# 3.880 / 3.592, drums x2 3.960 / 3.860, voice x1.25 4.698 / 4.626, piano x0.97 4.557 / 4.495, mixture x2
# 4.379 / 4.318. The real song has none: WSOLA's round trips score as high as the vocoder's or higher.
FLOORS = {("drums", 0.5): 3.80, ("drums", 2.0): 3.92, ("voice", 1.25): 4.66, ("piano", 0.97): 4.53,
          ("mixture", 2.0): 4.35}


def check(args):
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        for (name, r), floor in FLOORS.items():
            base = stereo(material(name, 1.0))
            src, ideal = os.path.join(folder, "src.wav"), os.path.join(folder, "ideal.wav")
            write(src, base)
            frames = int(round(base.shape[0] * r))
            write(ideal, stereo(material(name, r))[:frames])
            scores = {}
            for engine in ("vocoder", "wsola"):
                out = os.path.join(folder, f"{engine}.wav")
                run_tool(f"driftfix:{engine}", args.driftfix, src, out, frames, r)
                scores[engine] = visqol(ideal, out)
            print(f"{name:8} x{r:<4} floor {floor:.3f}: vocoder {scores['vocoder']:.3f}, WSOLA {scores['wsola']:.3f}")
            if scores["vocoder"] < floor:
                failures.append(f"{name} x{r}: the phase vocoder scored {scores['vocoder']:.3f}, below {floor}")
            if scores["wsola"] >= floor:
                failures.append(f"{name} x{r}: WSOLA scored {scores['wsola']:.3f}, so the floor {floor} tells nothing")
    for line in failures:
        print("stretch-quality: " + line, file=sys.stderr)
    sys.exit(1 if failures else 0)


def table(results, tools):
    cells = {}
    for row in results:
        cells.setdefault((row["material"], row["ratio"]), {})[row["tool"]] = row["visqol"]
    print("material        ratio  " + "  ".join(f"{t:>9}" for t in tools))
    for (name, r), by in cells.items():
        print(f"{name:14}  {r:<5}  " + "  ".join(f"{by.get(t, float('nan')):9.3f}" for t in tools))
    means = {t: np.mean([row["visqol"] for row in results if row["tool"] == t]) for t in tools}
    print("mean                   " + "  ".join(f"{means[t]:9.3f}" for t in tools))


def markdown(args):
    with open(args.json) as f:
        results = json.load(f)["results"]
    # One renderer for the tables: the docs' generated regions use it too.
    print(figures.stretch_table(results, "visqol", "ViSQOL MOS-LQO"))
    if any(row["pesq"] is not None for row in results):
        print(figures.stretch_table(results, "pesq", "PESQ (wide band), the voice"))


def render(args):
    os.makedirs(args.dir, exist_ok=True)
    for name in MATERIALS:
        write(os.path.join(args.dir, f"{name}.wav"), stereo(material(name, 1.0)))
        for r in RATIOS:
            write(os.path.join(args.dir, f"{name}-ideal-{r}.wav"), stereo(material(name, r)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render")
    r.add_argument("dir")
    s = sub.add_parser("score")
    s.add_argument("--driftfix", default=".build/release/driftfix")
    s.add_argument("--tools", default="driftfix,R2,R3,sox")
    s.add_argument("--ratios", default=",".join(str(x) for x in RATIOS))
    s.add_argument("--materials", default=",".join(MATERIALS + ["song:Kevin_MacLeod_-_Vibe_Ace.ogg"]))
    s.add_argument("--json")
    m = sub.add_parser("markdown")
    m.add_argument("json")
    c = sub.add_parser("check")
    c.add_argument("--driftfix", default=".build/release/driftfix")
    args = parser.parse_args()
    {"render": render, "score": score, "check": check, "markdown": markdown}[args.command](args)


if __name__ == "__main__":
    main()
