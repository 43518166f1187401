"""What every benchmark section shares, written once: the order statistics of a list of timings, a command's wall
time, CPU time and peak memory over several runs (from the kernel's own accounting of the waited-for process, as
time(1) reads it), a scratch folder on tmpfs, and the results file a section keeps (bench-results/NAME, through
figures.py, with the date, this machine and the command that made it)."""
import contextlib
import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(SCRIPTS)
sys.path.insert(0, SCRIPTS)
import figures  # noqa: E402


class BenchError(Exception):
    """A section could not measure what it measures: a command failed, a fixture is missing. Says which and why."""


@dataclasses.dataclass(frozen=True)
class Spread:
    """The median, the smallest and the largest of some numbers; of an even count the lower of the two middle values
    (a value that was measured, never an average of two)."""
    median: float
    low: float
    high: float

    @staticmethod
    def of(values):
        ordered = sorted(values)
        if not ordered:
            raise ValueError("the spread of no values")
        return Spread(ordered[(len(ordered) - 1) // 2], ordered[0], ordered[-1])


@dataclasses.dataclass(frozen=True)
class Run:
    """One run of a command: its wall seconds (a monotonic clock), CPU seconds (user and system, its children
    included), peak resident KiB (the largest process of it), exit status and what it wrote on stdout."""
    wall: float
    cpu: float
    peak_kib: int
    status: int
    stdout: str = ""


@dataclasses.dataclass(frozen=True)
class Runs:
    """Several runs of one command: the spread of their wall seconds and the largest peak among them."""
    runs: tuple

    @property
    def walls(self):
        return [run.wall for run in self.runs]

    @property
    def wall(self):
        return Spread.of(self.walls)

    @property
    def peak_mib(self):
        """The largest peak of the runs in whole MiB (rounded down, as the tables have always shown it)."""
        return max(run.peak_kib for run in self.runs) // 1024


def spawn(args, *, pin=False, **options):
    """Starts ARGS (subprocess.Popen's options). `pin`: on the first core only, as `taskset -c 0` would start it: this
    process takes that core for the moment of the spawn, and the child inherits it. (A preexec function would pin
    it too, but makes Python fork its whole self instead of spawning: some milliseconds on every timed run.)"""
    if not pin:
        return subprocess.Popen(args, **options)
    every = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(every)})
    try:
        return subprocess.Popen(args, **options)
    finally:
        os.sched_setaffinity(0, every)


def run_once(args, *, pin=False, env=None, capture=False, check=True, stdin=None, cwd=None, log=None):
    """Runs ARGS once under time(1), which reads the kernel's account of the waited-for command and its waited-for
    children (CPU seconds, peak RSS). Not from this process's own wait: a child forked from Python keeps Python's
    pages until it execs, and the kernel counts them in its peak. Wall seconds by a monotonic clock. `pin`: on the
    first core only (as `taskset -c 0`). `capture`: its stdout kept in the Run. `log`: its stdout and stderr both
    written to that file as they came (a repair's summary on one, its log lines on the other), and kept in the Run.
    A failed command raises BenchError with the last lines of its stderr, unless `check` is off."""
    environment = None if env is None else {**os.environ, **env}
    with contextlib.ExitStack() as files:
        account = files.enter_context(tempfile.NamedTemporaryFile("r"))
        errors = files.enter_context(open(log, "w+b") if log else tempfile.TemporaryFile())
        stdout = subprocess.PIPE if capture else errors if log else subprocess.DEVNULL
        start = time.perf_counter()
        process = spawn(["/usr/bin/time", "-o", account.name, "-f", "%U %S %M", *map(str, args)], pin=pin,
                        stdout=stdout, stderr=errors, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                        env=environment, cwd=cwd)
        captured, _ = process.communicate()
        wall = time.perf_counter() - start
        errors.seek(0)
        written = errors.read().decode(errors="replace")
        if check and process.returncode != 0:
            tail = written.strip().splitlines()[-3:]
            raise BenchError(f"{' '.join(map(str, args))} exited {process.returncode}: " + " / ".join(tail))
        # The last line: time(1) puts "Command exited with non-zero status N" before it.
        user, system, peak = account.read().strip().splitlines()[-1].split()
    kept = captured.decode(errors="replace") if capture else written if log else ""
    return Run(wall, float(user) + float(system), int(peak), process.returncode, kept)


def timed(count, args, *, pin=False, env=None, check=True):
    """COUNT runs of ARGS (see run_once)."""
    return Runs(tuple(run_once(args, pin=pin, env=env, check=check) for _ in range(count)))


def output(args, **options):
    """What ARGS writes on stdout (it must succeed)."""
    return run_once(args, capture=True, **options).stdout


def shown(args, *, pin=False):
    """Runs ARGS untimed (the tool times itself), its stdout shown line by line as it comes and returned; stderr
    passes through. For a tool whose own table is the section's output. A failure raises BenchError."""
    sys.stdout.flush()
    lines = []
    with spawn([str(arg) for arg in args], pin=pin, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
               text=True, errors="replace") as process:
        for line in process.stdout:
            print(line, end="", flush=True)
            lines.append(line)
    if process.returncode:
        raise BenchError(f"{' '.join(map(str, args))} exited {process.returncode}")
    return "".join(lines)


def wall_of(args):
    """The wall seconds of one run of ARGS, nothing else measured (no time(1) in between: for commands timed against
    each other so closely that its exec would count). A failure raises BenchError."""
    start = time.perf_counter()
    status = subprocess.run([str(arg) for arg in args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    if status:
        raise BenchError(f"{' '.join(map(str, args))} exited {status}")
    return wall


def frames_at(frames, ratio):
    """A frame count scaled by a ratio, rounded half to even as printf's %.0f did."""
    return round(frames * ratio)


class Bench:
    """One benchmark run: the release binaries, the work folder, the sizes (BENCH_* in the environment) and where
    the results go. Sections are functions of a Bench."""

    def __init__(self, *, bin_dir, work, results, seconds, environ=None):
        self.bin_dir = bin_dir
        self.work = work
        self.results = results
        self.seconds = seconds
        self.environ = dict(os.environ if environ is None else environ)
        # The cores this run may use (as nproc counts them: its affinity, a cpuset's), by the ids driftfix names
        # its core claims with.
        self.core_ids = sorted(os.sched_getaffinity(0))
        self.cores = len(self.core_ids)
        os.makedirs(work, exist_ok=True)

    # The two programs under test.
    @property
    def driftfix(self):
        return os.path.join(self.bin_dir, "driftfix")

    @property
    def tool(self):
        return os.path.join(self.bin_dir, "driftfix-bench")

    def path(self, *names):
        return os.path.join(self.work, *names)

    def setting(self, name, default):
        """BENCH_NAME from the environment, or the default (a string)."""
        return self.environ.get(f"BENCH_{name}", default)

    def number(self, name, default):
        value = self.setting(name, str(default))
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                raise BenchError(f"BENCH_{name}={value!r} is not a number") from None

    def words(self, name, default):
        return self.setting(name, default).split()

    @property
    def input_wav(self):
        """The long 48 kHz stereo 24-bit input of the resample, stretch and AAC sections, made once."""
        path = self.path(f"in-{self.seconds}s.wav")
        if not os.path.exists(path):
            print(f"generating {self.seconds} s of 48 kHz stereo 24-bit audio in {path}")
            run_once([self.tool, "generate", path, "--seconds", str(self.seconds)])
        return path

    @contextlib.contextmanager
    def scratch(self, name):
        """A folder on tmpfs when there is one (the CPU's cost, not the disk's), else in the work folder; removed
        afterwards."""
        parent = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else self.work
        folder = tempfile.mkdtemp(prefix=f"driftfix-{name}.", dir=parent)
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def on_tmpfs(self, folder):
        return not os.path.abspath(folder).startswith(os.path.abspath(self.work))

    def record(self, name, data, command):
        """Keeps a section's results as bench-results/NAME (or the --results folder), with their provenance, then
        renders the docs' generated regions from them (only for the real results folder: a trial run's results
        are not the docs')."""
        figures.write_results(name, data, command, folder=self.results)
        if os.path.abspath(self.results) == os.path.abspath(figures.RESULTS):
            self.render()

    def render(self):
        """The docs' generated regions from bench-results/ (a region whose results are missing waits)."""
        if subprocess.run([sys.executable, os.path.join(SCRIPTS, "figures.py"), "render"], cwd=ROOT).returncode:
            print("bench: a generated region's results are missing; it is left as it was")


def remove(*paths):
    for path in paths:
        if os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
