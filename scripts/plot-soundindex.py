#!/usr/bin/env python3
"""Draws the table `driftfix-bench soundindex` prints as a log-log SVG: a clip's cost against the recorder-hours
indexed (the lookup alone, the whole indexed search, and the search of every recording), with the 20 ms goal. No
plotting library needed; the numbers are the table's, read from the bench's output.

    driftfix-bench soundindex ... | tee growth.txt
    scripts/plot-soundindex.py growth.txt OUT.svg
    scripts/plot-soundindex.py bench-results/soundindex.json docs/images/soundindex-growth.svg   (bench.sh's results)
"""
import json
import math
import sys

from figures import soundindex_rows  # the one reader of the bench's table


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    text = open(sys.argv[1]).read()
    lines = json.loads(text)["table"] if sys.argv[1].endswith(".json") else text.splitlines()
    table = soundindex_rows(lines)
    series = [
        ("every ms", "every recording searched", "#b44"),
        ("indexed ms", "indexed search (lookup and exact search)", "#36c"),
        ("lookup ms", "lookup alone", "#7a7"),
    ]
    hours = [r["hours"] for r in table]
    values = [r[k] for r in table for k, _, _ in series if r.get(k) is not None] + [20]
    x_low, x_high = math.log10(min(hours)), math.log10(max(hours))
    y_low, y_high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    w, h, left, top, right, bottom = 660, 360, 60, 20, 36, 50
    sx = lambda v: left + (math.log10(v) - x_low) / max(1e-9, x_high - x_low) * (w - left - right)
    sy = lambda v: top + (y_high - math.log10(v)) / (y_high - y_low) * (h - top - bottom)
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (w, h),
        '<rect width="100%" height="100%" fill="white"/>',
    ]
    for e in range(int(y_low), int(y_high) + 1):
        y = sy(10**e)
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, w - right, y, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g ms</text>' % (left - 4, y + 4, 10**e))
    for v in hours:
        out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ddd"/>' % (sx(v), sx(v), top, h - bottom))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g h</text>' % (sx(v), h - bottom + 14, v))
    out.append('<text x="%d" y="%d" text-anchor="middle">recorder-hours indexed</text>' % ((left + w - right) // 2, h - 12))
    goal = sy(20)
    out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="4 3"/>' % (left, w - right, goal, goal))
    out.append('<text x="%d" y="%.1f" fill="#666">goal: 20 ms a clip</text>' % (w - right - 110, goal - 4))
    for i, (key, label, colour) in enumerate(series):
        points = [(r["hours"], r[key]) for r in table if r.get(key) is not None]
        if not points:
            continue
        path = " ".join("%.1f,%.1f" % (sx(x), sy(y)) for x, y in points)
        out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>' % (path, colour))
        for x, y in points:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (sx(x), sy(y), colour))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>' % (left + 10, top + 14 + 14 * i, colour, label))
    out.append("</svg>")
    open(sys.argv[2], "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
