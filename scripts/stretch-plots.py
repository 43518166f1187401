#!/usr/bin/env python3
"""A held note and a drum hit through each stretch, drawn: docs/images/stretch-*.png.

The sound is made here: a held piano-like note (a harmonic tone, 220 Hz, slow decay) from 0.1 s, and a snare-like
hit (a noise burst on a click, 60 ms decay) at 0.6 s. Each tool stretches it by 1.25 to the exact length; the ideal is
the same score rendered at 1.25x the pace (the note held longer, the hit moved to 0.75 s with its own shape). Left:
the spectrogram (0-8 kHz, 2048-point frames) of each output. Right: the waveform 40 ms either side of where the hit
belongs, with that place marked: a hit smeared, doubled, early or late shows there.

    stretch-plots.py --driftfix BIN [--out docs/images]
"""

import argparse
import os
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import soundfile  # noqa: E402

RATE = 48_000
RATIO = 1.25
SECONDS = 1.6
HIT = 0.6


def render(r):
    n = int(round(SECONDS * r * RATE))
    t = np.arange(n) / RATE
    rng = np.random.default_rng(4)
    x = np.zeros(n)
    note = t >= 0.1 * r
    tn = (t - 0.1 * r)[note]
    x[note] = sum(0.25 / k * np.sin(2 * np.pi * 220 * k * tn) for k in range(1, 12)) * np.exp(-tn / (1.2 * r))
    at = int(round(HIT * r * RATE))
    length = int(0.3 * RATE)
    burst = rng.standard_normal(length) * np.exp(-np.arange(length) / (0.06 * RATE)) * 0.35
    burst[0] += 0.8
    end = min(n, at + length)
    x[at:end] += burst[: end - at]
    return x


def stretch(tool, driftfix, source, target, frames):
    if tool.startswith("driftfix"):
        cmd = [driftfix, "process", source, target, "--method", "stretch", "--to-frames", str(frames), "-q", "-y",
               "--stretch-engine", tool.split(":")[1]]
    elif tool in ("R2", "R3"):
        cmd = ["rubberband", "-q", "-2" if tool == "R2" else "-3", "--centre-focus", "-D", f"{frames / RATE:.9f}",
               source, target]
    else:
        cmd = ["sox", source, target, "tempo", f"{1 / RATIO:.10f}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    y, _ = soundfile.read(target)
    y = y[:frames] if y.shape[0] >= frames else np.concatenate([y, np.zeros(frames - y.shape[0])])
    return y


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--driftfix", default=".build/release/driftfix")
    parser.add_argument("--out", default="docs/images")
    args = parser.parse_args()
    source = render(1.0)
    ideal = render(RATIO)
    frames = ideal.size
    rows = [("ideal (the score at 1.25x)", ideal)]
    with tempfile.TemporaryDirectory() as folder:
        src = os.path.join(folder, "src.wav")
        soundfile.write(src, source, RATE, subtype="FLOAT")
        for tool, label in [("driftfix:vocoder", "driftfix phase vocoder"), ("driftfix:wsola", "driftfix WSOLA"),
                            ("R3", "Rubber Band R3"), ("R2", "Rubber Band R2"), ("sox", "sox tempo")]:
            rows.append((label, stretch(tool, args.driftfix, src, os.path.join(folder, "out.wav"), frames)))
    hit = HIT * RATIO
    figure, axes = plt.subplots(len(rows), 2, figsize=(12, 2.1 * len(rows)), gridspec_kw={"width_ratios": [3, 2]})
    for (label, y), (left, right) in zip(rows, axes):
        left.specgram(y, NFFT=2048, Fs=RATE, noverlap=1536, cmap="magma", vmin=-140, vmax=-20)
        left.set_ylim(0, 8000)
        left.set_ylabel("Hz")
        left.set_title(label, loc="left", fontsize=10)
        window = slice(int((hit - 0.04) * RATE), int((hit + 0.04) * RATE))
        t = (np.arange(window.start, window.stop) / RATE - hit) * 1000
        right.plot(t, y[window], linewidth=0.6, color="black")
        right.axvline(0, color="tab:red", linewidth=0.8)
        right.set_ylim(-1, 1)
        right.set_title("the hit: ms from its place", loc="left", fontsize=9)
    axes[-1][0].set_xlabel("output seconds")
    axes[-1][1].set_xlabel("ms")
    figure.tight_layout()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "stretch-note-and-hit.png")
    figure.savefig(path, dpi=80)
    print(path)


if __name__ == "__main__":
    main()
