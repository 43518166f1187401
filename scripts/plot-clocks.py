#!/usr/bin/env python3
"""Draws, for each pair of a driftfix report measured by its sound, why its clock model was chosen: the windows' lag
with the straight line through them taken away (what a straight clock leaves), the chosen model's path the same way,
and the drift along the take. One SVG per pair, no plotting library needed.

    scripts/plot-clocks.py REPORT.json OUTDIR [--truth TRUTH.json]

TRUTH.json (optional) maps a recording's folder name to its true drift along the take, as [[seconds, ppm], ...], drawn
dashed beside the measured drift.
"""
import argparse
import json
import os


def polyline(points, sx, sy, cls):
    return '<polyline class="%s" points="%s"/>' % (cls, " ".join("%.1f,%.1f" % (sx(x), sy(y)) for x, y in points))


def panel(x0, y0, w, h, series, title, unit, marks=()):
    values = [y for _, points, _ in series for _, y in points] or [0, 1]
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.08
    low, high = low - pad, high + pad
    t_end = max((x for _, points, _ in series for x, _ in points), default=1)
    sx = lambda t: x0 + 50 + t / t_end * (w - 60)
    sy = lambda v: y0 + 20 + (high - v) / (high - low) * (h - 40)
    out = ['<text x="%d" y="%d" class="title">%s</text>' % (x0 + 50, y0 + 14, title)]
    out.append('<text x="%d" y="%.1f" class="axis">%.3g %s</text>' % (x0, sy(high - pad) + 4, high - pad, unit))
    out.append('<text x="%d" y="%.1f" class="axis">%.3g %s</text>' % (x0, sy(low + pad) + 4, low + pad, unit))
    if low < 0 < high:
        out.append('<line class="zero" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>' % (sx(0), sx(t_end), sy(0), sy(0)))
    for t in marks:
        out.append('<line class="mark" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>' % (sx(t), sx(t), y0 + 20, y0 + h - 20))
    for cls, points, _ in series:
        if points:
            out.append(polyline(points, sx, sy, cls))
    out.append('<text x="%.1f" y="%d" class="axis">0 s</text><text x="%.1f" y="%d" class="axis" text-anchor="end">%.0f s</text>'
               % (sx(0), y0 + h - 4, sx(t_end), y0 + h - 4, t_end))
    legend = x0 + 50
    for cls, _, label in series:
        out.append('<line class="%s" x1="%d" x2="%d" y1="%d" y2="%d"/><text x="%d" y="%d" class="axis">%s</text>'
                   % (cls, legend, legend + 16, y0 + h + 8, y0 + h + 8, legend + 20, y0 + h + 12, label))
        legend += 28 + 7 * len(label)
    return "\n".join(out)


def figure(pair, truth):
    content = pair["content"]
    clock = content.get("clock")
    windows = [(p["atSeconds"], p["lagMs"]) for p in content["curve"]]
    # The straight line through the windows: what a straight clock's repair would follow.
    n = len(windows)
    mt = sum(t for t, _ in windows) / n
    ml = sum(l for _, l in windows) / n
    slope = sum((t - mt) * (l - ml) for t, l in windows) / max(1e-12, sum((t - mt) ** 2 for t, _ in windows))
    line = lambda t: ml + slope * (t - mt)
    series = []
    if clock:
        series.append(("model", [(p["atSeconds"], p["lagMs"] - line(p["atSeconds"])) for p in clock["lag"]],
                       "chosen model: " + content["model"]))
    series.append(("windows", [(t, l - line(t)) for t, l in windows], "windows (measured lag − straight line)"))
    marks = [s["atSeconds"] for s in clock["rateSteps"]] if clock else []
    svg = [panel(0, 0, 860, 210, series, "lag the straight line leaves", "ms", marks)]
    # What the model leaves: the windows less the model (the line for a straight clock), in microseconds.
    def model_lag(t):
        if not clock:
            return line(t)
        points = clock["lag"]
        for a, b in zip(points, points[1:]):
            if a["atSeconds"] <= t <= b["atSeconds"]:
                f = (t - a["atSeconds"]) / max(1e-9, b["atSeconds"] - a["atSeconds"])
                return a["lagMs"] + f * (b["lagMs"] - a["lagMs"])
        return points[-1]["lagMs"]
    left = [("windows", [(t, (l - model_lag(t)) * 1000) for t, l in windows], "windows − chosen model")]
    svg.append(panel(0, 500, 860, 160, left, "what the chosen model leaves (the windows' own noise)", "µs"))
    drift = [("measured", [(p["atSeconds"], p["driftPPM"]) for p in clock["drift"]], "drift measured")] if clock else []
    if truth:
        drift.append(("truth", truth, "truth"))
    if not clock:
        drift.append(("measured", [(0, content["driftPPM"]), (windows[-1][0], content["driftPPM"])], "drift measured (straight)"))
    svg.append(panel(0, 250, 860, 210, drift, "drift along the take", "ppm", marks))
    name = os.path.basename(os.path.dirname(pair["recording"]))
    caption = "%s: %s" % (name, pair.get("causeDetail") or content["model"])
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="-10 -30 880 720" font-family="sans-serif" font-size="11">'
            '<style>.windows{fill:none;stroke:#8a93a3;stroke-width:1}.model{fill:none;stroke:#c26a00;stroke-width:2}'
            '.measured{fill:none;stroke:#3b6fd8;stroke-width:2}.truth{fill:none;stroke:#1e8e3e;stroke-width:1.5;stroke-dasharray:5 4}'
            '.zero{stroke:#ccc}.mark{stroke:#b3261e;stroke-dasharray:2 3}.axis{fill:#5b6475}.title{font-weight:bold}</style>'
            '<text x="0" y="-12" class="title">%s</text>%s</svg>\n') % (caption, "\n".join(svg))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report")
    parser.add_argument("outdir")
    parser.add_argument("--truth")
    args = parser.parse_args()
    report = json.load(open(args.report))
    truths = json.load(open(args.truth)) if args.truth else {}
    os.makedirs(args.outdir, exist_ok=True)
    for pair in report["pairs"]:
        if not pair.get("content") or not pair["content"].get("curve"):
            continue
        name = os.path.basename(os.path.dirname(pair["recording"]))
        path = os.path.join(args.outdir, "clock-%s.svg" % name)
        with open(path, "w") as out:
            out.write(figure(pair, truths.get(name)))
        print(path)


if __name__ == "__main__":
    main()
