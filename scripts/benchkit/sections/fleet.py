"""A fleet's nights at scale: the scan of a whole night's headers and sidecars against reading each file's first 4 KiB;
night after night of QA over a growing fleet (its reports, its journal, its history queries, its drift alerts); and the
journal's bytes a pair over a night of real repairs and the unchanged nights after it.

Also what the distributed sections share with these: `repaired_lines` (a repair's summary line)."""
import os
import re
import shutil

from ..core import ROOT, SCRIPTS, output, remove, run_once, timed
from . import section

TAKES_A_SCAN_DEVICE = 40
ALERT = re.compile(r"alerting|started drifting|erratic")
REPAIRED = re.compile(r"^([0-9]+) repaired", re.MULTILINE)


def repaired_lines(text):
    """The summary lines of a repair's output that start with "N repaired" (e.g. "6 repaired, 0 unchanged, 18
    skipped, 0 refused, 0 failed, 0 unfinished")."""
    return [line for line in text.splitlines() if REPAIRED.match(line)]


def repaired_count(text):
    """N of the first "N repaired, ..." line of a repair's output, or None when there is none (a night that
    failed before its summary)."""
    match = REPAIRED.search(text)
    return int(match.group(1)) if match else None


def count_recordings(scan_json):
    """The pairs in `driftfix scan --format json`: its lines holding a pair's `"recording" :` key (as `grep -c`)."""
    return sum(1 for line in scan_json.splitlines() if '"recording" :' in line)


def alerts(log, limit=4):
    """A repair log's drift alerts (lines saying alerting, started drifting or erratic), each without the log line's
    prefix up to its last "] " ("... [driftfix] dev001: started drifting: ..." -> "dev001: started drifting: ..."),
    the first LIMIT."""
    found = [re.sub(r"^.*\] ", "", line) for line in log.splitlines() if ALERT.search(line)]
    return found[:limit]


def render_times(line):
    """scripts/render-time.mjs's line ("fcp_ms=188 dcl_ms=177 load_ms=178 (median of 3)") as {"fcp": 188, ...};
    None when it printed nothing of the kind (no browser, or it failed)."""
    found = {key: int(value) for key, value in re.findall(r"(\w+)_ms=(\d+)", line)}
    return found or None


def warm_spread(args):
    """Median, min and max wall seconds of five runs of ARGS after one to warm the cache; any exit status (a scan
    exits non-zero when it reports unreadable files, and is still a scan)."""
    run_once(args, check=False)
    return timed(5, args, check=False).wall


def drop_caches():
    """Empties the page cache (root only) so the next run reads from the device; False when it cannot."""
    if not os.access("/proc/sys/vm/drop_caches", os.W_OK):
        return False
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as handle:
            handle.write("3\n")
    except OSError:  # root in a container whose /proc/sys is read-only: writable by mode, refused by the kernel
        return False
    return True


@section("scan", "one night of a fleet's headers and sidecars scanned, against reading each file's first 4 KiB",
         sizes='BENCH_SCAN_DEVICES="2501 250" (40 takes a device)')
def scan(bench):
    # One night of a fleet (60 s sparse WAVs with duration sidecars), 40 takes per device: 2,501 devices make 100,040
    # pairs, 250 make 10,000. Each size is a row of scan.json (the docs' fleet-scan table and the README's sentence).
    print()
    rows = []
    for devices in bench.words("SCAN_DEVICES", "2501 250"):
        tree = bench.path(f"scan-fleet-{devices}")
        media = os.path.join(tree, "media")
        if not os.path.isdir(tree):  # kept between runs: a fleet of sparse files costs minutes to lay out
            run_once([bench.tool, "fleet", media, "--devices", devices, "--takes", str(TAKES_A_SCAN_DEVICE),
                      "--night", "0"])
        json_scan = warm_spread([bench.driftfix, "scan", media, "--format", "json"])
        table_scan = warm_spread([bench.driftfix, "scan", media, "--format", "table"])
        # The peer is a pipeline (find feeding xargs), so a shell runs it; the folder is its argument, not its text.
        headers = warm_spread(["bash", "-c", 'find "$1" -type f -print0 | xargs -0 head -c 4096', "heads", media])
        pairs = count_recordings(run_once([bench.driftfix, "scan", media, "--format", "json"], capture=True,
                                          check=False).stdout)
        print(f"## Fleet scan: {pairs} pairs (WAV headers and sidecars), warm cache, all cores; median of 5 (min-max)")
        print(f"scan --format json    {json_scan.median:.3f} s ({json_scan.low:.3f}-{json_scan.high:.3f})")
        print(f"scan --format table   {table_scan.median:.3f} s ({table_scan.low:.3f}-{table_scan.high:.3f})")
        print(f"first 4 KiB of every file (find | xargs head): {headers.median:.3f} s "
              f"({headers.low:.3f}-{headers.high:.3f})")
        print(f"json scan / header read: {json_scan.median / headers.median:.1f}x")
        cold = None
        if drop_caches():
            cold = run_once([bench.driftfix, "scan", media, "--format", "json"], check=False).wall
            print(f"scan --format json, cold cache (one run): {cold:.2f} s")
        rows.append({"pairs": pairs, "json": [json_scan.median, json_scan.low, json_scan.high],
                     "table": [table_scan.median, table_scan.low, table_scan.high],
                     "headers": [headers.median, headers.low, headers.high], "coldJSON": cold})
    bench.record("scan.json", {"rows": rows}, "BENCH_SECTIONS=scan scripts/bench.sh")


@section("fleet", "fleet QA night after night: the repair, its reports, its journal, history, drift alerts",
         sizes="BENCH_FLEET_DEVICES=500 BENCH_FLEET_TAKES=40 BENCH_FLEET_NIGHTS=5")
def fleet(bench):
    # Night K's repair scans nights 0..K of a fleet of 60 s sparse WAVs with sidecar references; device 1 starts
    # drifting and device 2 turns erratic on the last night. Each number goes to fleet.json (the docs' fleet QA
    # table and its sentences).
    devices = bench.number("FLEET_DEVICES", 500)
    takes = bench.number("FLEET_TAKES", 40)
    nights = bench.number("FLEET_NIGHTS", 5)
    folder = bench.path("fleet")
    media, out, report = (os.path.join(folder, name) for name in ("media", "out", "report"))
    journal = os.path.join(out, ".driftfix", "journal.sqlite")
    remove(folder)
    os.makedirs(folder)
    print()
    print(f"## Fleet QA: {devices} devices x {takes} takes x {nights} nights = {devices * takes * nights} pairs "
          "(60 s sparse WAVs with")
    print("## sidecar references; night K's repair scans nights 0..K; device 1 starts drifting and device 2 turns "
          "erratic on the last)")
    print(f"{'night':<6} {'pairs':>8} {'run s':>8} {'peak MiB':>10} {'html MB':>9} {'json MB':>9} {'csv MB':>9} "
          f"{'journal MB':>9} {'journal +MB':>11} {'B/pair/run':>11}")
    rows, last_size, log = [], 0, ""
    for night in range(nights):
        run_once([bench.tool, "fleet", media, "--devices", str(devices), "--takes", str(takes), "--night", str(night),
                  "--change-night", str(nights - 1)])
        remove(report)
        # Any exit status: a night with failed pairs is still a night whose reports and journal are measured.
        run = run_once([bench.driftfix, "repair", media, "--out", out, "--workers", "2", "--report", report],
                       log=os.path.join(folder, "run.log"), check=False)
        log = run.stdout
        pairs = (night + 1) * devices * takes
        size = os.stat(journal).st_size
        html, json_size, csv = (os.stat(os.path.join(report, f"report.{kind}")).st_size
                                for kind in ("html", "json", "csv"))
        print(f"{night:<6} {pairs:>8d} {run.wall:>8.1f} {run.peak_kib / 1024:>10.0f} {html / 1e6:>9.2f} "
              f"{json_size / 1e6:>9.1f} {csv / 1e6:>9.1f} {size / 1e6:>9.1f} {(size - last_size) / 1e6:>11.1f} "
              f"{(size - last_size) / pairs:>11.0f}")
        rows.append({"night": night, "pairs": pairs, "wall": run.wall, "peakKiB": run.peak_kib, "html": html,
                     "json": json_size, "csv": csv, "journal": size})
        last_size = size
    all_pairs = nights * devices * takes
    scanned = run_once([bench.driftfix, "scan", media, "--format", "table"], check=False)
    print(f"scan alone (header probes, {all_pairs} pairs): {scanned.wall:.1f} s, {all_pairs / scanned.wall:.0f} "
          f"pairs/s, peak {scanned.peak_kib / 1024:.0f} MiB")
    found = alerts(log)
    for alert in found:
        print(alert)
    render = None
    if shutil.which("node") and shutil.which("chromium"):
        line = run_once(["node", "--experimental-websocket", os.path.join(SCRIPTS, "render-time.mjs"),
                         os.path.join(report, "report.html"), "3"], capture=True, check=False, cwd=ROOT).stdout.strip()
        print(f"report.html in headless Chromium (first contentful paint, DOMContentLoaded, load; median of 3): {line}")
        render = render_times(line)
    history = {}

    def history_time(key, label, *args):
        """The median wall time of 5 runs of driftfix history ARGS, in whole ms, kept as KEY."""
        milliseconds = int(timed(5, [bench.driftfix, "history", "--out", out, *args]).wall.median * 1000)
        print(f"{label:<52} {milliseconds:>6} ms")
        history[key] = milliseconds

    print(f"history at {nights} runs (whole command, median of 5):")
    history_time("device", f"  driftfix history --device dev001 (its {takes} files)", "--device", "dev001")
    history_time("fleet", "  driftfix history (every device, table)", "--limit", "50")
    filled = output([bench.tool, "journal-fill", "--journal", journal, "--report", os.path.join(report, "report.json"),
                     "--runs", str(30 - nights)])
    for line in filled.splitlines():
        print(f"  journal-fill: {line}")
    long_journal = os.stat(journal).st_size
    print(f"history at 30 runs of {all_pairs} pairs (journal {long_journal / 1e6:.0f} MB):")
    history_time("device30", "  driftfix history --device dev001 --runs 30", "--device", "dev001", "--runs", "30")
    history_time("fleet30", "  driftfix history --runs 30 (every device, table)", "--runs", "30", "--limit", "50")
    history_time("json30", "  driftfix history --runs 30 --format json (all devices)", "--runs", "30",
                 "--format", "json")
    bench.record("fleet.json", {"devices": devices, "takes": takes, "nights": nights, "rows": rows,
                                "scan": {"wall": scanned.wall, "peakKiB": scanned.peak_kib},
                                "alerts": [alert.strip() for alert in found if alert.strip()], "render": render,
                                "historyMs": history, "journalAt30Runs": long_journal},
                 "BENCH_SECTIONS=fleet scripts/bench.sh")


@section("journal", "the journal's bytes a pair: a night of real repairs, then unchanged nights",
         sizes="BENCH_JOURNAL_DEVICES=500 (40 takes a device) BENCH_JOURNAL_NIGHTS=3")
def journal(bench):
    # One night of real repair jobs (every pair drifted 400 ppm: resampled, verified, recorded with its fingerprints
    # for the next nights), then nights over the unchanged tree (every pair "unchanged"). Each night goes to
    # journal.json (the docs' bytes-a-pair sentence).
    devices = bench.number("JOURNAL_DEVICES", 500)
    unchanged = bench.number("JOURNAL_NIGHTS", 3)
    tree = bench.path("journal")
    media, out = os.path.join(tree, "media"), os.path.join(tree, "out")
    remove(tree)
    os.makedirs(tree)
    run_once([bench.tool, "fleet", media, "--devices", str(devices), "--takes", "40", "--seconds", "5",
              "--add-ppm", "400"])
    pairs = sum(1 for _, _, files in os.walk(media) for name in files if name.endswith(".wav"))
    print()
    print(f"## Journal size: {pairs} pairs of 5 s WAVs (paths like {media}/dev123/night0/take12.wav), 2 workers")
    print(f"{'night':<16} {'run s':>10} {'repaired':>10} {'journal MB':>12} {'B/pair added':>12}")
    nights, last = [], 0
    try:
        for night in range(unchanged + 1):
            # Any exit status: the journal is measured whatever the night's outcome (its count says it).
            run = run_once([bench.driftfix, "repair", media, "--out", out, "--workers", "2"],
                           log=os.path.join(tree, "run.log"), check=False)
            size = os.stat(os.path.join(out, ".driftfix", "journal.sqlite")).st_size
            repaired = repaired_count(run.stdout)
            label = "first (repairs)" if night == 0 else f"unchanged {night}"
            print(f"{label:<16} {run.wall:>10.1f} {'?' if repaired is None else repaired:>10} {size / 1e6:>12.2f} "
                  f"{(size - last) / pairs:>12.0f}")
            nights.append({"night": night, "wall": run.wall, "repaired": repaired, "journal": size})
            last = size
    finally:
        remove(tree)
    bench.record("journal.json", {"pairs": pairs, "seconds": 5, "nights": nights},
                 "BENCH_SECTIONS=journal scripts/bench.sh")
