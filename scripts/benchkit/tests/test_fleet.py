"""The fleet sections' readers of printed output, on lines captured from real runs (scripts/bench.py fleet, journal,
scan and repair at small sizes)."""
import unittest

from benchkit.sections import fleet

REPAIR_LOG = """\
2026-11-30T15:39:05+0000 notice driftfix.repair: [DriftKit] run 2: 38 pairs: 6 to repair, 0 unchanged since an \
earlier run, 28 in sync, 4 refused or unreadable
2026-11-30T15:39:05+0000 notice driftfix.repair: [driftfix] worker local-24854-1 joined (capacity 1)
2026-11-30T15:39:05+0000 notice driftfix.repair: [driftfix] repaired /tmp/h-fd/work/fleet/out/dev001/night1/take0.wav \
(2879770 frames, resample, local-24854-1, 0.08 s)
2026-11-30T15:39:06+0000 warning driftfix.repair: [DriftKit] dev001: started drifting: +79.9 ppm in the latest run, \
+0.2 ppm before (median of 1 run)
2026-11-30T15:39:06+0000 warning driftfix.repair: [DriftKit] dev002: erratic: its recordings spread over 12.0 ppm in \
the latest run, 0.1 ppm before (interquartile range)
RECORDING                DRIFT ms  PPM    SYNC                              CAUSE           BY       PLAN      TARGET \
         OUTCOME   NOTE

38 pairs, 0:36:00 of audio: 6 to repair, 28 in sync, 4 refused, 2 errors, 2 unpaired; 0 past a lip-sync limit; worst \
+79.9 ppm
6 repaired, 0 unchanged, 28 skipped, 4 refused, 0 failed, 0 unfinished
"""

SCAN_JSON = """\
      "place" : null,
      "processingSeconds" : null,
      "recording" : "/tmp/h-fd/work/scan-fleet-5/media/dev000/night0/take0.wav",
      "recordingEndSeconds" : null,
      "recordingFrames" : 2880000,
      "place" : null,
      "processingSeconds" : null,
      "recording" : "/tmp/h-fd/work/scan-fleet-5/media/dev000/night0/take1.wav",
      "recordingEndSeconds" : null,
"""


class Readers(unittest.TestCase):
    def test_alerts(self):
        self.assertEqual(fleet.alerts(REPAIR_LOG), [
            "dev001: started drifting: +79.9 ppm in the latest run, +0.2 ppm before (median of 1 run)",
            "dev002: erratic: its recordings spread over 12.0 ppm in the latest run, 0.1 ppm before (interquartile "
            "range)"])
        self.assertEqual(fleet.alerts(REPAIR_LOG, limit=1)[0][:6], "dev001")
        self.assertEqual(fleet.alerts("6 repaired, 0 unchanged\n"), [])

    def test_repaired(self):
        self.assertEqual(fleet.repaired_count(REPAIR_LOG), 6)
        self.assertEqual(fleet.repaired_lines(REPAIR_LOG),
                         ["6 repaired, 0 unchanged, 28 skipped, 4 refused, 0 failed, 0 unfinished"])
        self.assertEqual(fleet.repaired_count("0 repaired, 24 unchanged, 0 skipped, 0 refused, 0 failed, 0 unfinished"),
                         0)
        # A log line about one repaired file is not the summary; a night without a summary has no count.
        self.assertIsNone(fleet.repaired_count(REPAIR_LOG.splitlines()[2]))

    def test_count_recordings(self):
        self.assertEqual(fleet.count_recordings(SCAN_JSON), 2)
        self.assertEqual(fleet.count_recordings(""), 0)

    def test_render_times(self):
        self.assertEqual(fleet.render_times("fcp_ms=104 dcl_ms=60 load_ms=86 (median of 3)"),
                         {"fcp": 104, "dcl": 60, "load": 86})
        self.assertIsNone(fleet.render_times(""))


if __name__ == "__main__":
    unittest.main()
