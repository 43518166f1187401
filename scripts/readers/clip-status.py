#!/usr/bin/env python3
"""Every clip's one status from a driftfix report, one "status<TAB>clip" line each, without reading a note.

    scripts/readers/clip-status.py report.json

Reads `driftfix sync --format json` (groups[].files) and the scan/repair report of a night paired by sound
(version 2: a sound-paired row's `place`, an unpaired file's `status`). The same lines as clip-status.jq.
"""
import json
import sys


def statuses(report):
    if "groups" in report:
        for group in report["groups"]:
            for file in group["files"]:
                if file["kind"] == "clip":
                    yield file["status"], file["path"]
        return
    for row in report["pairs"]:
        if row.get("pairedBy") == "sound" and row.get("place") in ("used", "failed"):
            yield ("paired" if row["place"] == "used" else "failed"), row["reference"]
    for file in report["unpaired"]:
        if file["kind"] == "reference" and file.get("status") is not None:
            yield file["status"], file["path"]


def main():
    with open(sys.argv[1], "rb") as handle:
        report = json.load(handle)
    for status, clip in statuses(report):
        sys.stdout.write(f"{status}\t{clip}\n")


if __name__ == "__main__":
    main()
