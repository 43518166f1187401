"""The distributed sections' readers of printed output, on lines captured from real runs (scripts/bench.py dispatch,
chaos and chaos-net at small sizes, and compare's measuring half)."""
import unittest

from benchkit.core import BenchError
from benchkit.sections import distributed

DISPATCH = """\
20000 no-op jobs to 2 workers (capacity 64), in-memory store, ipc: 2.78 s, 7203 jobs/s (complete)
20000 no-op jobs to 2 workers (capacity 64), journal, ipc: 4.26 s, 4699 jobs/s (complete)
20000 no-op jobs to 2 workers (capacity 64), in-memory store, CURVE over TCP: 1.43 s, 13992 jobs/s (complete)
"""

CHAOS = """\
night        wall s  x calm  killed  poison  coord  lost   restart  requeued  result
undisturbed  2.7     1.00    0       0       0      0      0        0         exit 0, 30 exact, 0 failed (0 no room), \
poison repaired
seed 11      1.7     0.63    1       8       1      1      1        36        exit 1, 25 exact, 7 failed (5 no room), \
poison failed, cut input failed
killed: workers SIGKILLed by the chaos loop; poison: by the watcher; coord: coordinator kills. lost, restart,
requeued: as the resumed run counted them (the killed coordinator's own counts die with it).
"""

CHAOS_NET = """\
chaos-net: seed 1; 200 recordings of 5 s; coordinator and 3 workers in network namespaces (CURVE)
chaos-net: files 200 repaired 200 failed 0 unfinished 0
chaos-net: kills 0 partitions 1 netem 1 (all healed; netem: all loss 100% by tbf: this kernel has no sch_netem; \
restarts not made after the night's end 0; turns with every worker already disrupted 0)
chaos-net: requeues 1 late-results-discarded 0 workers-lost 1 (the coordinator's tally: workers lost 1, replaced 0, \
jobs requeued 1)
chaos-net: wall undisturbed 4.0 s, chaos 5.6 s (1.38x)
chaos-net: outputs exact: 200 of 200; temporary files left: 0; duplicates: 0; report targets agree: 200
chaos-net: undisturbed night: repaired 200 of 200, failed 0, unfinished 0, other 0, exact 200, temporary files left 0, \
duplicates 0, report targets agree 200
chaos-net: coordinator exit undisturbed 0, chaos 0
chaos-net: exit 0
"""


class Readers(unittest.TestCase):
    def test_dispatch_rows(self):
        rows = distributed.dispatch_rows("some other line\n" + DISPATCH)
        self.assertEqual(rows, [
            {"jobs": 20000, "workers": 2, "store": "in-memory store", "transport": "ipc", "seconds": 2.78,
             "jobsPerSecond": 7203},
            {"jobs": 20000, "workers": 2, "store": "journal", "transport": "ipc", "seconds": 4.26,
             "jobsPerSecond": 4699},
            {"jobs": 20000, "workers": 2, "store": "in-memory store", "transport": "CURVE over TCP", "seconds": 1.43,
             "jobsPerSecond": 13992}])

    def test_jobs_per_second(self):
        self.assertEqual(distributed.jobs_per_second(DISPATCH.splitlines()[1] + "\n"), 4699.0)
        self.assertEqual(distributed.jobs_per_second(DISPATCH), 13992.0)  # the last line's
        with self.assertRaises(BenchError):
            distributed.jobs_per_second("")

    def test_chaos_nights(self):
        nights = distributed.chaos_nights(CHAOS)
        self.assertEqual([night["night"] for night in nights], ["undisturbed", "seed 11"])
        self.assertEqual(nights[1], {"night": "seed 11", "wall": 1.7, "killed": 1, "poison": 8, "coordinator": 1,
                                     "lost": 1, "restarted": 1, "requeued": 36,
                                     "result": "exit 1, 25 exact, 7 failed (5 no room), poison failed, "
                                               "cut input failed"})
        self.assertEqual(nights[0]["result"], "exit 0, 30 exact, 0 failed (0 no room), poison repaired")

    def test_chaos_net_nights(self):
        nights = distributed.chaos_net_nights(CHAOS_NET.splitlines())
        self.assertEqual(nights, [{"seed": 1, "files": 200, "fileSeconds": 5, "kills": 0, "partitions": 1,
                                   "losses": 1, "healed": True, "requeues": 1, "late": 0, "lost": 1,
                                   "undisturbed": 4.0, "chaos": 5.6, "exact": 200, "temporary": 0, "duplicates": 0,
                                   "undisturbedExact": 200, "exit": 0}])
        # Two runs in a row: each night its own; lines before the first night's start are not anyone's.
        twice = distributed.chaos_net_nights(["chaos-net: exit 2"] + CHAOS_NET.splitlines()
                                             + CHAOS_NET.replace("seed 1;", "seed 2;").splitlines())
        self.assertEqual([night["seed"] for night in twice], [1, 2])
        self.assertNotIn("exit 2", str(twice))


if __name__ == "__main__":
    unittest.main()
