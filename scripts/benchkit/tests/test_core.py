"""The benchmark's shared timing against real processes with known answers: a sleep's wall time, a program that
holds a known amount of memory, a copy's small peak (not the pages of the Python that forked it), the first core
only when pinned, a failure named with its error."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

from benchkit.core import Bench, BenchError, Spread, frames_at, output, run_once, shown, timed, wall_of
from benchkit.sections import Section, with_partners

PYTHON = sys.executable


class SpreadTests(unittest.TestCase):
    def test_an_odd_count_has_its_middle(self):
        self.assertEqual(Spread.of([3.0, 1.0, 2.0]), Spread(2.0, 1.0, 3.0))

    def test_an_even_count_has_the_lower_middle_never_an_average(self):
        self.assertEqual(Spread.of([4.0, 1.0, 3.0, 2.0]).median, 2.0)

    def test_one_value_is_all_three(self):
        self.assertEqual(Spread.of([0.5]), Spread(0.5, 0.5, 0.5))

    def test_no_values_is_an_error(self):
        with self.assertRaises(ValueError):
            Spread.of([])


class RunTests(unittest.TestCase):
    def test_wall_time_covers_the_command(self):
        run = run_once(["sleep", "0.2"])
        self.assertGreaterEqual(run.wall, 0.2)
        self.assertLess(run.wall, 2.0)
        self.assertEqual(run.status, 0)

    def test_peak_memory_is_the_commands(self):
        # 96 MiB touched page by page: the peak is at least that, and a copy's peak is a few MiB, not the ~20 MiB of
        # the Python process that started it.
        held = run_once([PYTHON, "-c", "b = bytearray(96 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1"])
        self.assertGreaterEqual(held.peak_kib, 96 << 10)
        small = run_once(["true"])
        self.assertLess(small.peak_kib, 8 << 10)

    def test_cpu_time_counts_a_busy_command_not_a_sleeping_one(self):
        spin = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
        busy = run_once([PYTHON, "-c", spin])
        self.assertGreaterEqual(busy.cpu, 0.25)
        self.assertLess(run_once(["sleep", "0.3"]).cpu, 0.1)

    def test_pinned_runs_on_one_core(self):
        shown = output([PYTHON, "-c", "import os; print(len(os.sched_getaffinity(0)))"], pin=True)
        self.assertEqual(shown.strip(), "1")

    def test_a_failure_names_the_command_and_its_error(self):
        with self.assertRaises(BenchError) as raised:
            run_once([PYTHON, "-c", "import sys; sys.exit('no such recording: take9.wav')"])
        self.assertIn("no such recording: take9.wav", str(raised.exception))
        self.assertIn("exited 1", str(raised.exception))

    def test_an_unchecked_failure_keeps_its_status(self):
        self.assertEqual(run_once([PYTHON, "-c", "raise SystemExit(3)"], check=False).status, 3)

    def test_a_log_keeps_both_streams_in_the_order_written(self):
        with tempfile.TemporaryDirectory() as folder:
            log = os.path.join(folder, "run.log")
            script = "import sys\nprint('3 repaired', flush=True)\nprint('device 2 turned erratic', file=sys.stderr)"
            run = run_once([PYTHON, "-c", script + "\nsys.exit(1)"], log=log, check=False)
            with open(log) as handle:
                self.assertEqual(handle.read(), "3 repaired\ndevice 2 turned erratic\n")
            self.assertEqual(run.stdout, "3 repaired\ndevice 2 turned erratic\n")
            self.assertEqual(run.status, 1)

    def test_a_shown_tool_prints_its_lines_and_returns_them(self):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            text = shown([PYTHON, "-c", "print('1 h: 3.1 MiB'); print('10 h: 31 MiB')"])
        self.assertEqual(text, "1 h: 3.1 MiB\n10 h: 31 MiB\n")
        self.assertEqual(printed.getvalue(), text)
        with self.assertRaises(BenchError), contextlib.redirect_stdout(io.StringIO()):
            shown([PYTHON, "-c", "raise SystemExit(2)"])

    def test_a_bare_wall_time_covers_the_command_and_names_a_failure(self):
        self.assertGreaterEqual(wall_of(["sleep", "0.1"]), 0.1)
        with self.assertRaises(BenchError):
            wall_of(["false"])

    def test_runs_keep_every_wall_time_and_the_largest_peak(self):
        runs = timed(3, ["sleep", "0.05"])
        self.assertEqual(len(runs.walls), 3)
        self.assertEqual(runs.wall, Spread.of(runs.walls))
        self.assertLess(runs.peak_mib, 8)


class PartnerTests(unittest.TestCase):
    SECTIONS = {name: Section(name, None, "", brings=brings)
                for name, brings in (("soundindex", ()), ("sync", ("soundindex",)), ("kernel", ()))}

    def test_a_section_brings_its_partner_first(self):
        self.assertEqual(with_partners(["kernel", "sync"], self.SECTIONS), ["kernel", "soundindex", "sync"])

    def test_a_partner_named_already_keeps_its_place_and_runs_once(self):
        self.assertEqual(with_partners(["sync", "soundindex"], self.SECTIONS), ["sync", "soundindex"])
        self.assertEqual(with_partners(["soundindex", "sync"], self.SECTIONS), ["soundindex", "sync"])


class SettingsTests(unittest.TestCase):
    def test_sizes_come_from_bench_variables(self):
        with tempfile.TemporaryDirectory() as work:
            bench = Bench(bin_dir="/nowhere", work=work, results=work, seconds=60,
                          environ={"BENCH_FLEET_DEVICES": "7", "BENCH_CHAOS_SEEDS": "11 22", "BENCH_RATE": "x"})
            self.assertEqual(bench.number("FLEET_DEVICES", 500), 7)
            self.assertEqual(bench.number("FLEET_TAKES", 40), 40)
            self.assertEqual(bench.words("CHAOS_SEEDS", "1"), ["11", "22"])
            with self.assertRaises(BenchError):
                bench.number("RATE", 1)

    def test_scaled_frames_round_as_printf_did(self):
        # 600 s at 48 kHz by -131 ppm: 28,796,227.2 frames -> 28,796,227 (the kernel section's target).
        self.assertEqual(frames_at(600 * 48000, 0.999869), 28796227)
        self.assertEqual(frames_at(20 * 48000, 0.999869), 959874)

    def test_scratch_is_removed_afterwards(self):
        with tempfile.TemporaryDirectory() as work:
            bench = Bench(bin_dir="/nowhere", work=work, results=work, seconds=60)
            with bench.scratch("test") as folder:
                open(os.path.join(folder, "x"), "w").close()
            self.assertFalse(os.path.exists(folder))


if __name__ == "__main__":
    unittest.main()
