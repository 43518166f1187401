"""The speed sections' readings of the tools' printed output, on lines the tools really printed (driftfix-bench snr,
driftfix verify, driftfix-bench media and converters, validation runs of 30 s and 20 s), and the measure line of a
real command."""
import sys
import tempfile
import unittest

from benchkit.core import Bench, BenchError
from benchkit.sections.speed import converter_line, found_frames, measure, media_phases, snr_line

# driftfix-bench media on a 30 s AAC input (BENCH_SECONDS=30).
MEDIA = """count (decode pass 1)            0.05 s    4.7%     560.5 xRT
decode (pass 2)                  0.02 s    1.7%    1535.0 xRT
resample                         0.41 s   35.5%      73.7 xRT
encode + mux                     0.64 s   56.2%      46.6 xRT
verify (decode and count)        0.02 s    1.9%    1388.8 xRT
sum of phases                    1.15 s  100.0%      26.2 xRT
"""

# One measurement of driftfix-bench converters' JSON.
CONVERTER = {"engine": "libsamplerate", "quality": "medium", "realtime": 49.49288227640921,
             "snr": {"0.30": 125.91373600212242, "0.40": 120.62838903524762, "0.45": 32.16599110908623}}


class SnrLineTests(unittest.TestCase):
    def test_driftfix_on_target(self):
        self.assertEqual(snr_line("121.9 -0.0002 +0.0001 0\n"), (121.9, "-0.0002", "+0.0001", 0))

    def test_ffmpeg_a_frame_off(self):
        self.assertEqual(snr_line("23.8 +0.0610 +0.2989 1\n"), (23.8, "+0.0610", "+0.2989", 1))

    def test_a_signed_count_is_a_number(self):
        self.assertEqual(snr_line("27.4 +0.0610 +0.1789 +1")[3], 1)


class FoundFramesTests(unittest.TestCase):
    def test_the_count_of_a_mismatch(self):
        line = "o2.wav: 1439811 frames found, 0 expected, difference 1439811: MISMATCH\n"
        self.assertEqual(found_frames(line), 1439811)

    def test_a_path_with_spaces(self):
        self.assertEqual(found_frames("/tmp/my take: 2.wav: 1439811 frames found, 0 expected, difference 1439811: "
                                      "MISMATCH"), 1439811)

    def test_no_count_is_an_error(self):
        with self.assertRaises(BenchError):
            found_frames("Error: o.wav: no such file")


class MediaPhasesTests(unittest.TestCase):
    def test_every_phase_and_the_sum(self):
        phases = media_phases(MEDIA)
        self.assertEqual([p["phase"] for p in phases], ["count (decode pass 1)", "decode (pass 2)", "resample",
                                                         "encode + mux", "verify (decode and count)", "sum of phases"])
        self.assertEqual(phases[2], {"phase": "resample", "seconds": 0.41, "share": 35.5})
        self.assertEqual(phases[-1], {"phase": "sum of phases", "seconds": 1.15, "share": 100.0})

    def test_other_lines_are_ignored(self):
        self.assertEqual(media_phases("time per phase, each run alone on one core:\n\n" + MEDIA.splitlines()[0]),
                         [{"phase": "count (decode pass 1)", "seconds": 0.05, "share": 4.7}])


class ConverterLineTests(unittest.TestCase):
    def test_bands_in_order_and_the_speed(self):
        self.assertEqual(converter_line(CONVERTER),
                         " libsamplerate medium: 125.9 / 120.6 / 32.2 dB, 49x realtime")


class MeasureTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.bench = Bench(bin_dir=self.folder.name, work=self.folder.name, results=self.folder.name, seconds=30)

    def tearDown(self):
        self.folder.cleanup()

    def test_seconds_of_audio_per_wall_second(self):
        measured = measure(self.bench, "a sleep", [sys.executable, "-c", "import time; time.sleep(0.3)"])
        self.assertAlmostEqual(measured.xrt, 30 / measured.run.wall)
        self.assertTrue(80 < measured.xrt < 100.5, measured.xrt)
        self.assertEqual(measured.line.split()[:2], ["a", "sleep"])
        self.assertEqual(measured.line[:34].rstrip(), "a sleep")
        self.assertEqual(measured.line.split()[-1], f"{measured.run.peak_kib / 1024:.1f}")

    def test_a_failure_names_the_pipeline(self):
        with self.assertRaisesRegex(BenchError, "^a broken pipeline failed: .*exited 3"):
            measure(self.bench, "a broken pipeline", [sys.executable, "-c", "import sys; sys.exit(3)"])


if __name__ == "__main__":
    unittest.main()
