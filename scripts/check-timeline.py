#!/usr/bin/env python3
"""Reads a timeline driftfix wrote with the editors' own readers, and checks it against a shoot's truth.

  .otio    OpenTimelineIO's own reader (the `opentimelineio` package);
  .fcpxml  xmllint against each DTD given (--dtd; $FCPXML_DTD too, e.g. Apple's own), the XML read with exact
           fractions, and OTIO's FCPXML adapter as a second reader of its clips' names;
  .edl     OTIO's CMX3600 adapter (otio-cmx3600-adapter), at --rate frames a second.

With --truth (the truth.json `driftfix-bench shoot` writes: where each clip lies in each recorder that heard it, from
the scene's numbers), every audio item under a clip must start at the recorder's sample of the clip's first moment:
within one sample (OTIO, FCPXML) or one frame (EDL, whole frames); every clip a recorder heard whole must have that
recorder's audio under it; clips heard by the same recorder must lie as far apart as the truth says (within a frame);
every clip must be on the timeline, and a clip nobody heard must carry an "unheard" marker. Prints a summary as JSON;
exit 1 on any difference, 2 when it cannot read the file.

Run it with the Python of the test set-up's venv (scripts/install-deps.sh makes it: .build-otio/bin/python).
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET
from fractions import Fraction


def rate_of(value):
    """An OTIO rate (a double) as the exact rate it stands for: 23.976023976023978 is 24000/1001."""
    return Fraction(value).limit_denominator(10000)


def seconds(value, rate):
    return Fraction(value).limit_denominator(10**9) / rate_of(rate)


def path_of(url):
    if url and url.startswith("file://"):
        return urllib.parse.unquote(url[len("file://"):])
    return url


def wave_start(path):
    """A WAV file's BWF start (TimeReference samples) and sample rate, read from its chunks; (0, rate) without bext."""
    start, rate = 0, None
    with open(path, "rb") as f:
        head = f.read(12)
        if head[:4] not in (b"RIFF", b"RF64") or head[8:12] != b"WAVE":
            return 0, None
        while True:
            chunk = f.read(8)
            if len(chunk) < 8:
                return start, rate
            name, size = chunk[:4], struct.unpack("<I", chunk[4:])[0]
            if name == b"data" and rate is not None and size in (0, 0xFFFFFFFF):
                return start, rate
            data = f.read(min(size, 1 << 16)) if name in (b"fmt ", b"bext") else None
            if name == b"fmt ":
                rate = struct.unpack("<I", data[4:8])[0]
            elif name == b"bext":
                start = struct.unpack("<Q", data[338:346])[0]
            if data is None or size > len(data):
                f.seek(size - (len(data) if data else 0), 1)
            if size & 1:
                f.seek(1, 1)


def plain(value):
    """OTIO's metadata (C++ dictionaries and vectors) as plain Python, to outlive the timeline."""
    if hasattr(value, "keys"):
        return {k: plain(value[k]) for k in value.keys()}
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        return value
    return [plain(v) for v in value]


def item(track, kind, name, path, position, source, duration, markers):
    return {"track": track, "kind": kind, "name": name, "path": path, "position": position, "source": source,
            "duration": duration, "markers": markers}


def read_otio(path):
    import opentimelineio as otio
    timeline = otio.adapters.read_from_file(path)
    items = []
    for track in timeline.tracks:
        for index, child in enumerate(track):
            if not isinstance(child, otio.schema.Clip):
                continue
            place = track.range_of_child_at_index(index).start_time
            source = child.source_range
            reference = child.media_reference
            available = reference.available_range
            first = available.start_time.value if available else 0
            items.append(item(
                track.name, track.kind, child.name, path_of(getattr(reference, "target_url", None)),
                seconds(place.value, place.rate), seconds(source.start_time.value - first, source.start_time.rate),
                seconds(source.duration.value, source.duration.rate),
                [{"name": m.name, "color": m.color, "comment": m.comment} for m in child.markers]))
    return {"name": timeline.name, "rate": float(rate_of(timeline.global_start_time.rate)), "items": items,
            "markers": [m.name for m in timeline.tracks.markers],
            "metadata": plain(timeline.metadata.get("driftfix", {}))}


def fcpxml_time(text):
    assert text.endswith("s"), text
    return Fraction(text[:-1])


def read_fcpxml(path, dtds):
    for dtd in dtds:
        check = subprocess.run(["xmllint", "--noout", "--dtdvalid", dtd, path], capture_output=True, text=True)
        if check.returncode != 0:
            raise SystemExit(f"{path}: not valid against {dtd}:\n{check.stderr}")
    root = ET.parse(path).getroot()
    assets = {a.get("id"): a for a in root.iter("asset")}
    sequence = root.find("library/event/project/sequence")
    gap = sequence.find("spine/gap")
    origin = fcpxml_time(gap.get("offset", "0s")) - fcpxml_time(gap.get("start", "0s"))
    items = []
    for clip in gap.findall("asset-clip"):
        asset = assets[clip.get("ref")]
        lane = int(clip.get("lane"))
        items.append(item(
            f"lane {lane}", "Video" if lane > 0 else "Audio", clip.get("name"),
            path_of(asset.find("media-rep").get("src")), origin + fcpxml_time(clip.get("offset")),
            fcpxml_time(clip.get("start", "0s")) - fcpxml_time(asset.get("start", "0s")),
            fcpxml_time(clip.get("duration", asset.get("duration"))),
            [{"name": m.get("value"), "color": None, "comment": m.get("note", "")} for m in clip.findall("marker")]))
    # The second reader: OTIO's adapter sees the same clips by name (it rounds times to whole frames, so only names).
    import opentimelineio as otio
    adapted = otio.adapters.read_from_file(path, adapter_name="fcpx_xml")
    names = sorted(c.name for c in adapted.find_clips()) if hasattr(adapted, "find_clips") else sorted(
        c.name for c in adapted.each_clip())
    if names != sorted(i["name"] for i in items):
        raise SystemExit(f"{path}: OTIO's FCPXML adapter reads clips {names}, the XML has {sorted(i['name'] for i in items)}")
    frame = next(f.get("frameDuration") for f in root.iter("format") if f.get("id") == sequence.get("format"))
    return {"name": root.find("library/event/project").get("name"), "rate": float(1 / fcpxml_time(frame)),
            "items": items, "markers": [m.get("value") for m in gap.findall("marker")], "metadata": {}}


def read_edl(path, rate):
    import opentimelineio as otio
    timeline = otio.adapters.read_from_file(path, adapter_name="cmx_3600", rate=float(rate))
    hour = 3600 * round(rate)
    items = []
    reels = []
    for track in timeline.tracks:
        origin = track.source_range.start_time.value if track.source_range else 0
        for index, child in enumerate(track):
            if not isinstance(child, otio.schema.Clip):
                continue
            record = track.range_of_child_at_index(index).start_time.value - origin - hour
            media = path_of(getattr(child.media_reference, "target_url", None))
            cmx = child.metadata.get("cmx_3600", {})
            reels.append((cmx.get("reel"), media, [c for c in cmx.get("comments", []) if c.startswith("REEL:")]))
            source = Fraction(child.source_range.start_time.value) / rate
            if track.kind == "Audio" and media and os.path.exists(media):
                start, sample_rate = wave_start(media)
                if sample_rate:
                    source -= Fraction(start, sample_rate)
            items.append(item(
                track.name, track.kind, child.name, media, Fraction(record) / rate, source,
                Fraction(child.source_range.duration.value) / rate,
                [{"name": m.name, "color": m.color, "comment": ""} for m in child.markers]))
    return {"name": timeline.name, "rate": float(rate), "items": items, "markers": [], "metadata": {},
            "reelProblems": reel_problems(reels)}


def reel_problems(reels):
    """A conform links each reel to one file: every reel names one source, every source one reel, and the event's
    `* REEL:` comment says the same."""
    problems = []
    by_reel, by_source = {}, {}
    for reel, media, comments in reels:
        if not reel:
            problems.append(f"{media}: no reel")
            continue
        by_reel.setdefault(reel, set()).add(media)
        by_source.setdefault(media, set()).add(reel)
        if comments != [f"REEL: {reel} IS {media}"]:
            problems.append(f"{media}: reel {reel}, its map comment says {comments}")
    problems += [f"reel {r} links {sorted(s)}" for r, s in by_reel.items() if len(s) > 1]
    problems += [f"{m} has reels {sorted(r)}" for m, r in by_source.items() if len(r) > 1]
    return problems


def check_report(reading, report, tolerance):
    """Differences between the timeline and driftfix's own measurement (`sync --format json`): the round trip must
    lose nothing but the rounding to a whole sample (or frame)."""
    problems = []
    measured = {}
    for group in report["groups"]:
        for m in group["matches"]:
            if m["status"] != "uncertain" and m.get("recordingStartSeconds") is not None:
                measured[(os.path.basename(m["reference"]), os.path.basename(m["recording"]))] = m
    video = [i for i in reading["items"] if i["kind"] == "Video"]
    worst = 0.0
    for a in (i for i in reading["items"] if i["kind"] == "Audio"):
        under = [v for v in video if v["position"] <= a["position"] < v["position"] + v["duration"]]
        m = measured.get((under[0]["name"], os.path.basename(a["path"] or a["name"]))) if under else None
        if m is None:
            problems.append(f"{a['name']}: no measured place in the report")
            continue
        drift = m.get("recordingDriftPPM") or (m.get("content") or {}).get("driftPPM") or 0
        start = a["source"] - (a["position"] - under[0]["position"]) * (1 + Fraction(drift) / 1_000_000)
        error = abs(float((start - Fraction(m["recordingStartSeconds"])) * tolerance["rate"]))
        worst = max(worst, error)
        if error > 0.5 + 1e-6 + (0.5 if tolerance["unit"] == "frames" else 0):
            problems.append(f"{a['name']} under {under[0]['name']}: {error:.3f} {tolerance['unit']} from the report")
    return problems, worst


def check(reading, truth, tolerance, listed_only=False):
    """Differences between the timeline and the truth, and the worst error in samples (or frames)."""
    problems = []
    clips = {os.path.basename(c["reference"]): c for c in truth["clips"]}
    if listed_only:
        names = {i["name"] for i in reading["items"] if i["kind"] == "Video"}
        clips = {name: clip for name, clip in clips.items() if name in names}
    video = [i for i in reading["items"] if i["kind"] == "Video"]
    audio = [i for i in reading["items"] if i["kind"] == "Audio"]
    by_name = {i["name"]: i for i in video}
    for name, clip in clips.items():
        if name not in by_name:
            problems.append(f"{name}: not on the timeline")
        elif not any(h["coverage"] > 0 for h in clip["heardBy"]):
            if not any(m["name"].lower().startswith("unheard") for m in by_name[name]["markers"]):
                problems.append(f"{name}: heard by nobody, and no 'unheard' marker")
    worst = 0.0
    checked = 0
    placed = set()
    for a in audio:
        under = [v for v in video if v["position"] <= a["position"] < v["position"] + v["duration"]
                 and v["name"] in clips]
        if not under:
            problems.append(f"{a['name']} at {float(a['position']):.6f} s: under no clip")
            continue
        v = under[0]
        recording = os.path.basename(a["path"] or a["name"])
        heard = [h for h in clips[v["name"]]["heardBy"] if os.path.basename(h["recording"]) == recording]
        if not heard:
            problems.append(f"{a['name']} under {v['name']}, which that recording did not hear")
            continue
        h = heard[0]
        speed = 1 + Fraction(h["driftPPM"]) / 1_000_000
        start = a["source"] - (a["position"] - v["position"]) * speed
        rate = tolerance["rate"]
        error = abs(float((start - Fraction(h["recordingStartSeconds"])) * rate))
        worst = max(worst, error)
        checked += 1
        placed.add((v["name"], recording))
        if error > tolerance["units"]:
            problems.append(
                f"{a['name']} under {v['name']}: starts at {float(start):.7f} s of the recording, the truth "
                f"{h['recordingStartSeconds']:.7f} s ({error:.2f} {tolerance['unit']} off)")
    for name, clip in clips.items():
        for h in clip["heardBy"]:
            if h["coverage"] >= 0.99 and (name, os.path.basename(h["recording"])) not in placed:
                problems.append(f"{name}: {os.path.basename(h['recording'])} heard it whole, and its audio is not under it")
    # Clips one recorder heard lie as far apart on the timeline as in that recorder (within a frame).
    frame = Fraction(1) / Fraction(reading["rate"]).limit_denominator(10000)
    for recording in {os.path.basename(h["recording"]) for c in clips.values() for h in c["heardBy"]}:
        pairs = [(by_name[n], h) for n, c in clips.items() for h in c["heardBy"]
                 if os.path.basename(h["recording"]) == recording and h["coverage"] >= 0.99 and n in by_name]
        for (va, ha), (vb, hb) in zip(pairs, pairs[1:]):
            speed = 1 + Fraction(ha["driftPPM"]) / 1_000_000
            wanted = (Fraction(hb["recordingStartSeconds"]) - Fraction(ha["recordingStartSeconds"])) / speed
            if abs(vb["position"] - va["position"] - wanted) > frame:
                problems.append(f"{va['name']} and {vb['name']}: {float(vb['position'] - va['position']):.4f} s apart, "
                                f"the truth {float(wanted):.4f} s")
    return problems, worst, checked


def draw(reading, path):
    """The timeline as its reader sees it, one row per track, a box per clip at its place (an HTML page)."""
    items = reading["items"]
    end = float(max((i["position"] + i["duration"] for i in items), default=1))
    tracks = sorted({(i["kind"], i["track"]) for i in items}, key=lambda t: (t[0] != "Video", t[1]))
    rows = []
    for kind, track in tracks:
        boxes = []
        for i in (i for i in items if (i["kind"], i["track"]) == (kind, track)):
            left, width = 100 * float(i["position"]) / end, 100 * float(i["duration"]) / end
            title = f"{i['name']}: at {float(i['position']):.3f} s, from {float(i['source']):.6f} s of its media"
            flags = "".join(f"<i title='{m['name']}'></i>" for m in i["markers"])
            boxes.append(f"<b class='{kind}' style='left:{left:.3f}%;width:{width:.3f}%' title=\"{title}\">"
                         f"{i['name']}{flags}</b>")
        rows.append(f"<div class='row'><span>{kind}: {track}</span><div class='lane'>{''.join(boxes)}</div></div>")
    page = ("<!doctype html><meta charset='utf-8'><title>timeline</title><style>"
            "body{font:13px sans-serif;margin:24px}.row{display:flex;align-items:center;margin:4px 0}"
            ".row span{width:160px}.lane{position:relative;flex:1;height:26px;background:#f3f3f3}"
            "b{position:absolute;top:2px;height:22px;overflow:hidden;white-space:nowrap;font-weight:normal;"
            "color:#fff;padding-left:3px;box-sizing:border-box;border-radius:3px}.Video{background:#37a}"
            ".Audio{background:#2a7a3a}i{display:inline-block;width:8px;height:8px;margin-left:4px;"
            "background:#fc3;border-radius:4px}</style>"
            f"<h3>{reading['name']}, as OpenTimelineIO reads it ({float(end):.1f} s)</h3>" + "".join(rows))
    with open(path, "w") as f:
        f.write(page)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("timeline")
    parser.add_argument("--truth")
    parser.add_argument("--dtd", action="append", default=[])
    parser.add_argument("--rate", default="25", help="the EDL's frame rate (24000/1001 for 23.976)")
    parser.add_argument("--sample-rate", type=int, default=48000, help="the recorders' rate, for the tolerance")
    parser.add_argument("--tolerance", type=float, default=1.0,
                        help="how far from the truth an audio item may start: samples (OTIO, FCPXML) or frames (EDL)")
    parser.add_argument("--listed-only", action="store_true",
                        help="check only the clips the file lists (an EDL per camera holds that camera's clips)")
    parser.add_argument("--html", help="also draw the timeline as read into this HTML page")
    parser.add_argument("--report", help="driftfix's own JSON of the pairing: the timeline must hold it exactly")
    args = parser.parse_args()
    ext = os.path.splitext(args.timeline)[1].lower()
    try:
        if ext == ".otio":
            reading = read_otio(args.timeline)
            tolerance = {"rate": args.sample_rate, "units": args.tolerance, "unit": "samples"}
        elif ext == ".fcpxml":
            dtds = args.dtd + ([os.environ["FCPXML_DTD"]] if os.environ.get("FCPXML_DTD") else [])
            reading = read_fcpxml(args.timeline, dtds)
            tolerance = {"rate": args.sample_rate, "units": args.tolerance, "unit": "samples"}
        elif ext == ".edl":
            rate = Fraction(args.rate)
            reading = read_edl(args.timeline, rate)
            tolerance = {"rate": float(rate), "units": args.tolerance, "unit": "frames"}
        else:
            raise SystemExit(f"{args.timeline}: not .otio, .fcpxml or .edl")
    except (OSError, ValueError, KeyError) as error:
        print(f"{args.timeline}: cannot read ({error})", file=sys.stderr)
        sys.exit(2)
    if args.html:
        draw(reading, args.html)
    summary = {"file": args.timeline, "name": reading["name"],
               "tracks": sorted({(i["kind"], i["track"]) for i in reading["items"]}),
               "clips": sorted(i["name"] for i in reading["items"] if i["kind"] == "Video"),
               "audio": len([i for i in reading["items"] if i["kind"] == "Audio"]),
               "audioFiles": sorted(i["path"] or "" for i in reading["items"] if i["kind"] == "Audio"),
               "markers": sorted(m["name"] for i in reading["items"] for m in i["markers"]) + reading["markers"],
               "metadata": reading["metadata"]}
    status = 0
    if "reelProblems" in reading:
        summary["reelProblems"] = reading["reelProblems"]
        summary["reels"] = len({(i["path"]) for i in reading["items"]})
        status = 1 if reading["reelProblems"] else 0
    if args.truth:
        with open(args.truth) as f:
            truth = json.load(f)
        problems, worst, checked = check(reading, truth, tolerance, args.listed_only)
        summary.update({"checked": checked, "worst": round(worst, 3), "unit": tolerance["unit"], "problems": problems})
        status = 1 if problems else 0
    if args.report:
        with open(args.report) as f:
            report = json.load(f)
        problems, worst = check_report(reading, report, tolerance)
        summary.update({"fromReport": round(worst, 3), "reportProblems": problems})
        status = status or (1 if problems else 0)
    print(json.dumps(summary, indent=1, default=str))
    sys.exit(status)


if __name__ == "__main__":
    main()
