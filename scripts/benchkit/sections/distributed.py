"""A night spread over workers: the dispatch of no-op jobs over ZeroMQ (in memory, journalled, CURVE over TCP); real
repairs on one and two local workers, the incremental rerun and a long file whose idle core is lent or held; what
tracing costs a night (untraced, and traced to a collector that refuses, to one that never answers, to a real one);
a night on a real single-node Slurm cluster; chaos nights (workers and the coordinator killed, a poison file, a
volume that fills) and chaos on a misbehaving network (scripts/chaos-net.sh); and, when BENCH_BASELINE names a
revision, that revision against this tree in the same run."""
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time

from ..core import ROOT, SCRIPTS, BenchError, Spread, output, remove, run_once, shown
from . import section
from .fleet import repaired_count, repaired_lines

CORPUS_FILES = 24
CORPUS_SECONDS = 60
# The reference of each corpus take: 131 ppm longer than its 60 s recording (2,880,000 frames at 48 kHz).
CORPUS_REFERENCE = "2880377@48000"
LONG_SECONDS = 600
LONG_REFERENCE = "28803773@48000"
DISPATCH_JOBS = 20000
DISPATCH_LINE = re.compile(r"(\d+) no-op jobs to (\d+) workers .*?, (in-memory store|journal), (CURVE over TCP|ipc): "
                           r"([0-9.]+) s, (\d+) jobs/s")
JOBS_PER_SECOND = re.compile(r".* ([0-9.]+) jobs/s")
CHAOS_LINE = re.compile(r"^(undisturbed|seed \d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                        r"\s+(.*)$")
TRACE_MODES = ("untraced", "refused", "silent", "received")


def dispatch_rows(text):
    """The rows of `driftfix-bench dispatch` output, from each line like "20000 no-op jobs to 2 workers (capacity
    64), journal, ipc: 2.51 s, 7953 jobs/s (complete)"; other lines are ignored."""
    rows = []
    for line in text.splitlines():
        if match := DISPATCH_LINE.match(line):
            rows.append({"jobs": int(match.group(1)), "workers": int(match.group(2)), "store": match.group(3),
                         "transport": match.group(4), "seconds": float(match.group(5)),
                         "jobsPerSecond": int(match.group(6))})
    return rows


def jobs_per_second(text):
    """The jobs a second of the last line of `driftfix-bench dispatch` output ("... 2.51 s, 7953 jobs/s
    (complete)" -> 7953.0)."""
    lines = text.strip().splitlines()
    match = JOBS_PER_SECOND.match(lines[-1]) if lines else None
    if not match:
        raise BenchError(f"no jobs/s in the dispatch output: {text.strip()[-200:]!r}")
    return float(match.group(1))


def chaos_nights(text):
    """The nights of `driftfix-bench chaos`'s table, each from a line like "seed 11   14.4   3.1   7   8   1   5   5
    1143   exit 1, 837 exact, ..." (the night, wall s, x calm (not kept), workers killed, by the poison, coordinator
    killed, lost, restarted, requeued, the result)."""
    nights = []
    for line in text.splitlines():
        if match := CHAOS_LINE.match(line):
            nights.append({"night": match.group(1), "wall": float(match.group(2)), "killed": int(match.group(4)),
                           "poison": int(match.group(5)), "coordinator": int(match.group(6)),
                           "lost": int(match.group(7)), "restarted": int(match.group(8)),
                           "requeued": int(match.group(9)), "result": match.group(10).strip()})
    return nights


def chaos_net_nights(lines):
    """The nights of scripts/chaos-net.sh's "chaos-net:" summary lines (several runs' lines in a row, each run's
    closed by the "chaos-net: exit N" line the bench adds): a night starts at its "seed S; N recordings of T s" line;
    the kills, requeues, wall, outputs-exact, undisturbed-night and exit lines fill it in."""
    nights, night = [], None
    for line in lines:
        def number(pattern):
            match = re.search(pattern, line)
            return float(match.group(1)) if match else None
        if match := re.search(r"seed (\d+); (\d+) recordings of (\d+) s", line):
            night = {"seed": int(match.group(1)), "files": int(match.group(2)), "fileSeconds": int(match.group(3))}
            nights.append(night)
        elif night is None:
            continue
        elif line.startswith("chaos-net: kills"):
            night.update(kills=int(number(r"kills (\d+)")), partitions=int(number(r"partitions (\d+)")),
                         losses=int(number(r"netem (\d+)")), healed="all healed" in line)
        elif line.startswith("chaos-net: requeues"):
            night.update(requeues=int(number(r"requeues (\d+)")), late=int(number(r"late-results-discarded (\d+)")),
                         lost=int(number(r"workers-lost (\d+)")))
        elif line.startswith("chaos-net: wall"):
            night.update(undisturbed=number(r"undisturbed ([\d.]+) s"), chaos=number(r"chaos ([\d.]+) s"))
        elif line.startswith("chaos-net: outputs exact"):
            night.update(exact=int(number(r"exact: (\d+) of")), temporary=int(number(r"temporary files left: (\d+)")),
                         duplicates=int(number(r"duplicates: (\d+)")))
        elif line.startswith("chaos-net: undisturbed night"):
            night.update(undisturbedExact=int(number(r"exact (\d+)")))
        elif line.startswith("chaos-net: exit"):
            night.update(exit=int(number(r"exit (\d+)")))
    return nights


def remove_journal(path):
    """A SQLite journal and the files beside it: its write-ahead log, shared memory and lock."""
    remove(path, path + "-wal", path + "-shm", path + "-journal", path + ".lock")


def make_corpus(bench):
    """The night of the repair, traces and compare sections: 24 x 60 s of 48 kHz stereo 24-bit, each with a sidecar
    reference 131 ppm longer (a -131 ppm clock). Made once in the work folder and kept; made aside and then renamed,
    so an interrupted making is not taken for a corpus the next time."""
    corpus = bench.path("corpus")
    if os.path.isdir(corpus):
        return corpus
    making = corpus + ".making"
    remove(making)
    os.makedirs(making)
    for take in range(1, CORPUS_FILES + 1):
        run_once([bench.tool, "generate", os.path.join(making, f"take{take}.wav"), "--seconds", str(CORPUS_SECONDS)])
        with open(os.path.join(making, f"take{take}.duration"), "w") as handle:
            handle.write(CORPUS_REFERENCE + "\n")
    os.rename(making, corpus)
    return corpus


@section("dispatch", "no-op jobs over ZeroMQ to 2 workers: in memory, journalled, CURVE over TCP")
def dispatch(bench):
    print()
    print("## Distributed: dispatch overhead (no-op jobs over ZeroMQ, 2 worker processes)")
    # Each line goes to dispatch.json too (the docs' distributed table is generated from it and repair.json).
    common = [bench.tool, "dispatch", "--jobs", str(DISPATCH_JOBS), "--workers", "2", "--driftfix", bench.driftfix]
    journal = bench.path("bench-journal.sqlite")
    text = ""
    for extra in ([],
                  # Every lease and result committed to the SQLite journal first (write-ahead), as `repair` runs.
                  ["--journal", journal],
                  # Authenticated and encrypted: workers over loopback TCP with CURVE, admitted by the ZAP handler.
                  ["--curve"]):
        if extra and extra[0] == "--journal":
            remove_journal(journal)  # a fresh journal: an earlier run's jobs would weigh on this one's
        text += shown(common + extra)
    remove_journal(journal)
    bench.record("dispatch.json", {"rows": dispatch_rows(text)}, "BENCH_SECTIONS=dispatch scripts/bench.sh")


@contextlib.contextmanager
def cores_held(core_ids):
    """Every core name but one bound, as another process's jobs would hold them (this night's job takes the last):
    the abstract Unix sockets driftfix claims a core by. Bound here, in the bench process (the sockets are not
    inherited by the commands it runs), and released on leaving."""
    held = []
    try:
        for core in core_ids[:-1]:
            claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            held.append(claim)
            with contextlib.suppress(OSError):  # bound already: another driftfix holds that core, held all the same
                claim.bind(f"\0driftfix-{os.getuid()}-core-{core}")
        yield
    finally:
        for claim in held:
            claim.close()


@section("repair", "24 x 60 s repaired on 1 and 2 local workers, the rerun, a long file's core lent or held")
def repair(bench):
    print()
    print(f"## Distributed: repair throughput with 1 and 2 local workers ({CORPUS_FILES} x {CORPUS_SECONDS} s stereo, "
          "-131 ppm, medium)")
    corpus = make_corpus(bench)
    audio = CORPUS_FILES * CORPUS_SECONDS
    took = {}
    for workers in (1, 2):
        repaired = bench.path(f"repaired-{workers}")
        remove(repaired)
        # Any exit status, as ever: the night's wall time is what is measured.
        took[workers] = run_once([bench.driftfix, "repair", corpus, "--out", repaired, "--workers", str(workers)],
                                 check=False).wall
        print(f"{workers} worker(s): {CORPUS_FILES} files, {audio} s of audio in {took[workers]:.2f} s: "
              f"{audio / took[workers]:.0f}x realtime")
    print(f"scaling efficiency 1 -> 2 workers: {took[1] / took[2] / 2:.2f} (speed-up {took[1] / took[2]:.2f}x)")

    print()
    print("## Nightly rerun over the unchanged corpus (incremental: fingerprints + output verification, no repair)")
    rerun = run_once([bench.driftfix, "repair", corpus, "--out", bench.path("repaired-2"), "--workers", "2"],
                     log=bench.path("rerun.txt"), check=False)
    print(f"rerun in {rerun.wall:.2f} s (first run {took[2]:.2f} s: {took[2] / rerun.wall:.0f}x faster)")
    for line in repaired_lines(rerun.stdout):
        print(line)
    remove(bench.path("repaired-1"), bench.path("repaired-2"))

    print()
    print(f"## The night's last file: one {LONG_SECONDS} s stereo recording (-131 ppm, medium) with 2 local workers, "
          "its idle core")
    print("## lent, then held by another process (as another job would: nothing to lend); 3 rounds, interleaved")
    long_night = bench.path("long-night")
    if not os.path.isdir(long_night):
        making = long_night + ".making"
        remove(making)
        os.makedirs(making)
        run_once([bench.tool, "generate", os.path.join(making, "take.wav"), "--seconds", str(LONG_SECONDS)])
        with open(os.path.join(making, "take.duration"), "w") as handle:
            handle.write(LONG_REFERENCE + "\n")
        os.rename(making, long_night)
    long_out = bench.path("long-out")
    walls = {"lent": [], "held": []}
    for _ in range(3):
        for mode in ("lent", "held"):
            remove(long_out)
            with cores_held(bench.core_ids) if mode == "held" else contextlib.nullcontext():
                wall = run_once([bench.driftfix, "repair", long_night, "--out", long_out, "--workers", "2"],
                                check=False).wall
            walls[mode].append(wall)
            print(f"{mode:<5} {wall:.2f} s: {LONG_SECONDS / wall:.0f}x realtime")
    remove(long_out)
    bench.record("repair.json", {"files": CORPUS_FILES, "fileSeconds": CORPUS_SECONDS, "oneWorker": took[1],
                                 "twoWorkers": took[2], "rerun": rerun.wall, "longSeconds": LONG_SECONDS,
                                 "longLent": walls["lent"], "longHeld": walls["held"]},
                 "BENCH_SECTIONS=repair scripts/bench.sh")


def wait_for_port(path, process, seconds=5.0):
    """The port a helper wrote to PATH once it listens; BenchError if it exits or writes none in time."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path):
            with open(path) as handle:
                return int(handle.read().strip())
        if process.poll() is not None:
            raise BenchError(f"{process.args[1]} exited {process.returncode} before it listened")
        time.sleep(0.05)
    raise BenchError(f"{process.args[1]} wrote no port to {path} in {seconds:.0f} s")


@section("traces", "the same night untraced and traced to a refusing, a silent and a real OTLP collector",
         sizes='BENCH_TRACES_ROUNDS=7 BENCH_TRACES_ARGS="--engine soxr --quality best"')
def traces(bench):
    arguments = bench.setting("TRACES_ARGS", "--engine soxr --quality best")
    rounds = bench.number("TRACES_ROUNDS", 7)
    print()
    print(f"## Traces: the same night ({CORPUS_FILES} x {CORPUS_SECONDS} s stereo, -131 ppm, {arguments}, 2 local "
          "workers) untraced, traced to a collector")
    print("## that refuses (closed port), to one that never answers (a loopback listener that accepts nothing), and "
          "to a")
    print("## real receiver (scripts/otlp-receiver.py);")
    print(f"## {rounds} rounds interleaved, median (min-max) wall and CPU seconds, against untraced")
    corpus = make_corpus(bench)
    port_file, spans, out = bench.path("otlp.port"), bench.path("spans.jsonl"), bench.path("traced-out")
    # An earlier run's port would be read before the receiver writes its own, its spans counted with these.
    remove(port_file, spans)
    python = os.environ.get("DRIFTFIX_OTIO_PYTHON", os.path.join(ROOT, ".build-otio", "bin", "python"))
    receiver = subprocess.Popen([python, os.path.join(SCRIPTS, "otlp-receiver.py"), "--port-file", port_file,
                                 "--out", spans], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    # A collector that never answers: a socket that listens and never accepts. The kernel completes the handshakes
    # (then, its backlog full, leaves the next ones unanswered) and each request waits for its timeout: nothing needs
    # to run for it, so it is a socket of this process rather than a process of its own.
    silent = socket.socket()
    walls = {mode: [] for mode in TRACE_MODES}
    cpu = {mode: [] for mode in TRACE_MODES}
    try:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        endpoints = {"untraced": None, "refused": "http://127.0.0.1:9",
                     "silent": f"http://127.0.0.1:{silent.getsockname()[1]}",
                     "received": f"http://127.0.0.1:{wait_for_port(port_file, receiver)}"}
        for _ in range(rounds):
            for mode in TRACE_MODES:
                remove(out)
                endpoint = endpoints[mode]
                # CPU seconds: the coordinator's and its workers' (its children, waited for).
                run = run_once([bench.driftfix, "repair", corpus, "--out", out, "--workers", "2", *arguments.split()],
                               env={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint} if endpoint else None, check=False)
                if run.status:
                    print(f"{mode}: the night failed", file=sys.stderr)
                walls[mode].append(run.wall)
                cpu[mode].append(run.cpu)
    finally:
        receiver.terminate()
        receiver.wait()
        silent.close()
        remove(out)  # a night's outputs (the spans are read below)
    base, cpu_base = Spread.of(walls["untraced"]).median, Spread.of(cpu["untraced"]).median
    for mode in TRACE_MODES:
        wall, used = Spread.of(walls[mode]), Spread.of(cpu[mode])
        print(f"{mode:<9} wall {wall.median:.2f} s ({wall.low:.2f}-{wall.high:.2f}) "
              f"{(wall.median / base - 1) * 100:+.1f} %   cpu {used.median:.2f} s ({used.low:.2f}-{used.high:.2f}) "
              f"{(used.median / cpu_base - 1) * 100:+.1f} %")
    received = 0  # the receiver makes its file at the first spans it is sent
    if os.path.exists(spans):
        with open(spans) as handle:
            received = sum(1 for _ in handle)
    print(f"spans received: {received} over {rounds} traced nights")
    # Every night's wall and CPU seconds go to traces.json (the docs' table).
    bench.record("traces.json", {"rounds": rounds, "arguments": arguments, "spans": received,
                                 "modes": {mode: {"wall": walls[mode], "cpu": cpu[mode]} for mode in TRACE_MODES}},
                 "BENCH_SECTIONS=traces scripts/bench.sh")
    remove(spans, port_file)


def slurm_media(bench, files=200):
    """FILES copies of one 5 s stereo take in 10 device folders, each with a reference 96 frames (2 ms) longer: a
    -400 ppm clock. Kept between runs."""
    media = bench.path("slurm-media")
    take = bench.path("slurm-take.wav")
    if not os.path.exists(take):
        run_once(["sox", "-n", "-r", "48000", "-c", "2", "-b", "24", take, "synth", "5", "sine", "220", "sine", "330",
                  "tremolo", "3", "40"])
    for index in range(files):
        folder = os.path.join(media, f"d{index % 10}")
        os.makedirs(folder, exist_ok=True)
        copy = os.path.join(folder, f"take{index}.wav")
        if not os.path.exists(copy):
            shutil.copyfile(take, copy)
        with open(os.path.join(folder, f"take{index}.duration"), "w") as handle:
            handle.write(f"{240000 + 96}@48000\n")
    return media


@section("slurm", "a night with 2 worker tasks on a real single-node Slurm cluster against 2 local workers")
def slurm(bench):
    print()
    print("## Slurm: a night of 200 x 5 s stereo files (-400 ppm, medium) with 2 worker tasks on a real single-node "
          "cluster")
    print("## (scripts/slurm-cluster.sh), against the same night with 2 local workers; two rounds, interleaved")
    if os.getuid() != 0 or not shutil.which("slurmctld"):
        print("skipped: needs root and apt's slurm-wlm and munge (the daemons run as root)")
        return
    media = slurm_media(bench)
    cluster, out = bench.path("slurm-cluster"), bench.path("slurm-out")
    script = os.path.join(SCRIPTS, "slurm-cluster.sh")
    took, repaired = {"local": [], "slurm": []}, []
    try:
        run_once([script, "start", cluster], cwd=ROOT)
        for round_ in (1, 2):
            for how in ("local", "slurm"):
                remove(out)
                workers = ["--workers", "2"] if how == "local" else \
                    ["--launcher", "slurm", "--workers", "2", "--bind", "tcp://127.0.0.1:0"]
                run = run_once([bench.driftfix, "repair", media, "--out", out, *workers],
                               log=bench.path(f"slurm-{how}.txt"), check=False,
                               env={"SLURM_CONF": os.path.join(cluster, "slurm.conf")})
                if run.status:
                    print(f"{how} night failed:")
                    print("\n".join(run.stdout.splitlines()[-3:]))
                took[how].append(run.wall)
                # Each night's repaired count too: a night that failed fast must not read as a fast night.
                repaired.append(repaired_count(run.stdout) or 0)
                print(f"round {round_}, {how:<5} workers: {run.wall:6.2f} s  ({' '.join(repaired_lines(run.stdout))})")
    finally:
        # Always, a failed start included (stop undoes a partial one): the daemons would outlive the bench.
        run_once([script, "stop", cluster], cwd=ROOT, check=False)
        remove(out)
    local, slurm_ = min(took["local"]), min(took["slurm"])
    print(f"best of two: local {local:.2f} s, Slurm {slurm_:.2f} s: Slurm at {slurm_ / local:.2f}x the local wall time "
          "(the difference is sbatch and the scheduler placing the tasks)")
    # clusters.md's sentence is generated from slurm.json.
    bench.record("slurm.json", {"files": 200, "fileSeconds": 5, "local": took["local"], "slurm": took["slurm"],
                                "repaired": repaired}, "BENCH_SECTIONS=slurm scripts/bench.sh")


@section("chaos", "chaos nights: workers and the coordinator killed, a poison file, a cut input, a volume that fills",
         sizes='BENCH_CHAOS_FILES=1000 BENCH_CHAOS_SEEDS="11 22 33"')
def chaos(bench):
    files = bench.number("CHAOS_FILES", 1000)
    # device2 gets a third of the outputs (576 KB each) on a volume with room for about half of them (root only).
    volume_mib = files // 3 * 576 // 1024 // 2 + 1 if os.getuid() == 0 else 0
    print()
    print(f"## Chaos nights: {files} x 2 s stereo files, 3 local workers, a worker SIGKILLed about every 1.5 s, the")
    print("## coordinator killed once and resumed, a poison file that kills every worker that opens it, one")
    print(f"## recording cut to a third mid-read, device2's outputs on a {volume_mib} MiB tmpfs that fills "
          "(8 attempts a job)")
    seeds = [word for seed in bench.words("CHAOS_SEEDS", "11 22 33") for word in ("--seeds", seed)]
    text = shown([bench.tool, "chaos", "--driftfix", bench.driftfix, "--files", str(files), "--seconds", "2",
                  "--workers", "3", "--interval", "1.5", "--small-volume-mib", str(volume_mib), "--vanishing-input",
                  *seeds])
    # operations.md's table is generated from chaos.json.
    bench.record("chaos.json", {"files": files, "volumeMiB": volume_mib, "nights": chaos_nights(text)},
                 "BENCH_SECTIONS=chaos scripts/bench.sh")


@section("chaos-net", "chaos on the network: links cut, packets lost or delayed, workers killed (scripts/chaos-net.sh)",
         sizes='BENCH_CHAOSNET_FILES=1000 BENCH_CHAOSNET_RUNS="5:1 20:2" (seconds a file:seed, a night each)')
def chaos_net(bench):
    files = bench.number("CHAOSNET_FILES", 1000)
    print()
    print(f"## Chaos on the network: {files} x 5 s stereo files, a coordinator and 3 CURVE workers each in its own "
          "network")
    print("## namespace (scripts/chaos-net.sh); every 1-3 s a link cut for 1-6 s, netem loss 100% or delay 300ms for "
          "1-5 s, or")
    print("## a worker SIGKILLed and restarted; against the same night undisturbed; outputs checked from their WAV "
          "headers")
    if os.getuid() != 0:
        print("skipped: needs root (network namespaces, veth links, tc netem, bind mounts)")
        return
    # One night per SECONDS:SEED; each night's summary lines go to chaos-net.json (clusters.md's table).
    runs = bench.words("CHAOSNET_RUNS", f"5:{bench.setting('CHAOSNET_SEED', '1')} 20:2")
    summary, failed = [], []
    for index, night in enumerate(runs, 1):
        seconds, seed = night.split(":")[0], night.split(":")[-1]
        log = bench.path(f"chaos-net-{index}.log")  # a night's own: a later night must not overwrite a failed one's
        # Not timed (the script times its own nights): its summary lines on stdout, its disruptions and progress
        # in the log.
        with open(log, "w") as errors:
            process = subprocess.run([os.path.join(SCRIPTS, "chaos-net.sh")], stdout=subprocess.PIPE, stderr=errors,
                                     stdin=subprocess.DEVNULL, cwd=ROOT, text=True,
                                     env={**os.environ, "DRIFTFIX": bench.driftfix, "FILES": str(files),
                                          "FILE_SECONDS": seconds, "SEED": seed})
        if process.returncode == 77:
            print("skipped: network namespaces cannot be made here (needs CAP_SYS_ADMIN)")
            return
        lines = [line for line in process.stdout.splitlines() if line.startswith("chaos-net:")]
        for line in lines:
            print(line)
        summary += lines + [f"chaos-net: exit {process.returncode}"]
        if process.returncode:
            print(f"chaos-net exit {process.returncode}; its log: {log}")
            failed.append(night)
    if failed:
        # Not recorded: the table would show a night that did not come through as one that did.
        raise BenchError(f"chaos-net: the night(s) {' '.join(failed)} failed; chaos-net.json not written")
    bench.record("chaos-net.json", {"nights": chaos_net_nights(summary)}, "BENCH_SECTIONS=chaos-net scripts/bench.sh")


def git(*args):
    return output(["git", *args], cwd=ROOT).strip()


def baseline_worktree(bench, revision):
    """A git worktree of REVISION in the work folder (kept while it is at that revision)."""
    base = bench.path("baseline")
    short = git("rev-parse", "--short", revision)
    there = run_once(["git", "-C", base, "rev-parse", "--short", "HEAD"], capture=True, check=False)
    if there.status or there.stdout.strip() != short:
        if run_once(["git", "worktree", "remove", "--force", base], cwd=ROOT, check=False).status:
            remove(base)
        run_once(["git", "worktree", "add", "-f", "--detach", base, revision], cwd=ROOT)
    return base, short


def build_baseline(base):
    """Both release binaries of the baseline worktree, as the bench builds this tree's; their folder."""
    for product in ("driftfix", "driftfix-bench"):
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", product], check=True,
                       cwd=base, stdout=subprocess.DEVNULL)
    return os.path.join(base, ".build", "release")


def head_revision():
    """This tree's short revision, "+changes" when tracked files differ from it."""
    revision = git("rev-parse", "--short", "HEAD")
    return revision + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def compare_binaries(bench, sides, names, rounds=3):
    """Journalled dispatch and the 24 x 60 s repair, for each of SIDES (label -> the folder of its driftfix and
    driftfix-bench), interleaved, ROUNDS rounds each; prints their medians side by side, NAMES the columns' titles.
    Returns {label: {"rate": [...], "repair": [...]}}."""
    corpus = make_corpus(bench)
    journal, out = bench.path("compare-journal.sqlite"), bench.path("compare-out")
    measured = {label: {"rate": [], "repair": []} for label in sides}
    for _ in range(rounds):
        for label, folder in sides.items():
            driftfix = os.path.join(folder, "driftfix")
            remove_journal(journal)  # each run journals into a fresh one, as the dispatch section's does
            printed = output([os.path.join(folder, "driftfix-bench"), "dispatch", "--jobs", str(DISPATCH_JOBS),
                              "--workers", "2", "--driftfix", driftfix, "--journal", journal])
            measured[label]["rate"].append(jobs_per_second(printed))
            remove(out)
            measured[label]["repair"].append(run_once([driftfix, "repair", corpus, "--out", out, "--workers", "2"],
                                                      check=False).wall)
    remove(out)
    remove_journal(journal)
    (before, after), (first, second) = list(sides), names
    print(f"{'measure':<48} {first:>12} {second:>12} {'ratio':>8}")
    rate = [Spread.of(measured[label]["rate"]).median for label in (before, after)]
    print(f"{'dispatch, journalled (jobs/s, higher is better)':<48} {rate[0]:>12.0f} {rate[1]:>12.0f} "
          f"{rate[1] / rate[0]:>8.2f}")
    took = [Spread.of(measured[label]["repair"]).median for label in (before, after)]
    print(f"{'24 x 60 s repair, 2 workers (s, lower is better)':<48} {took[0]:>12.2f} {took[1]:>12.2f} "
          f"{took[1] / took[0]:>8.2f}")

    def words(values, form):
        return " ".join(format(value, form) for value in values)

    print(f"all rounds: dispatch baseline {words(measured[before]['rate'], '.0f')} | head "
          f"{words(measured[after]['rate'], '.0f')}; repair baseline {words(measured[before]['repair'], '.2f')} | head "
          f"{words(measured[after]['repair'], '.2f')}")
    return measured


@section("compare", "BENCH_BASELINE=REV: that revision built in a worktree against this tree, interleaved")
def compare(bench):
    revision = bench.environ.get("BENCH_BASELINE", "")
    if not revision:
        print("compare: skipped: BENCH_BASELINE is not set (the revision to build in a worktree and measure this tree "
              "against)")
        return
    print()
    base, short = baseline_worktree(bench, revision)
    baseline_bin = build_baseline(base)
    head = head_revision()
    print(f"## Before/after: {short} (baseline) vs {head}, same machine, interleaved, 3 rounds each (median)")
    compare_binaries(bench, {"baseline": baseline_bin, "head": bench.bin_dir}, (short, head))
