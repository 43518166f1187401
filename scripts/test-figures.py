#!/usr/bin/env python3
"""The figures tool against results made up here, so each test knows its answer: a region rewritten from its results
and refused when edited by hand, a results file refused without its provenance, and the generated verdicts turning
with the numbers (a goal met, then missed). Run by scripts/test.sh beside `figures.py check`."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figures  # noqa: E402

PROVENANCE = {"date": "2026-01-01 00:00 UTC", "machine": "2 cores (test)", "command": "made up by test-figures.py"}


class Results:
    """A bench-results folder of its own for one test: figures.RESULTS points at it while the test runs."""

    def __init__(self, **files):
        self.folder = tempfile.TemporaryDirectory()
        for name, data in files.items():
            with open(os.path.join(self.folder.name, name.replace("_", "-") + ".json"), "w") as handle:
                json.dump(data, handle)

    def __enter__(self):
        self.saved, figures.RESULTS = figures.RESULTS, self.folder.name
        return self

    def __exit__(self, *_):
        figures.RESULTS = self.saved
        self.folder.cleanup()


def scan(largest_json, largest_headers):
    return dict(PROVENANCE, rows=[
        {"pairs": 100_000, "json": [largest_json, largest_json, largest_json],
         "table": [1.0, 1.0, 1.0], "headers": [largest_headers] * 3, "coldJSON": None},
        {"pairs": 10_000, "json": [0.4, 0.4, 0.4], "table": [0.4, 0.4, 0.4], "headers": [0.1] * 3, "coldJSON": 1.5},
    ])


class RegionTests(unittest.TestCase):
    def test_a_region_is_rewritten_from_its_results_and_a_hand_edit_is_refused(self):
        with Results(scan=scan(4.0, 1.0)):
            text = "before\n<!-- figures: scan-headline -->\nold words\n<!-- end figures -->\nafter\n"
            generated, problems = figures.regenerate(text, "test.md")
            self.assertEqual(problems, [])
            self.assertIn("100,000 pairs with its JSON report takes 4.00 s warm, 4.0×", generated)
            self.assertTrue(generated.startswith("before\n") and generated.endswith("after\n"))
            again, _ = figures.regenerate(generated, "test.md")
            self.assertEqual(again, generated, "a rendered region renders to itself")
            edited = generated.replace("4.00 s", "3.00 s")
            self.assertNotEqual(figures.regenerate(edited, "test.md")[0], edited, "a hand edit does not survive")

    def test_a_region_without_a_generator_or_results_is_a_problem(self):
        with Results():
            _, problems = figures.regenerate("<!-- figures: no-such -->\nx\n<!-- end figures -->\n", "t.md")
            self.assertTrue(any("no generator" in p for p in problems), problems)
            _, problems = figures.regenerate("<!-- figures: fleet-scan -->\nx\n<!-- end figures -->\n", "t.md")
            self.assertTrue(any("fleet-scan" in p for p in problems), problems)

    def test_results_without_their_provenance_are_refused(self):
        data = scan(4.0, 1.0)
        del data["machine"]
        with Results(scan=data):
            with self.assertRaises(ValueError):
                figures.fleet_scan()


class VerdictTests(unittest.TestCase):
    def test_the_scan_goals_turn_with_the_numbers(self):
        with Results(scan=scan(4.0, 1.0)):
            self.assertIn("met.", figures.fleet_scan())
        with Results(scan=scan(12.0, 2.0)):  # over 10 s warm
            self.assertIn("NOT met", figures.fleet_scan())
        with Results(scan=scan(6.0, 0.5)):  # 12x the header read
            self.assertIn("NOT met", figures.fleet_scan())

    def test_the_memory_goal_turns_at_64_mib(self):
        rows = [{"label": "stereo, polyphase, medium", "everyCore": 40, "oneCore": 30}]
        with Results(memory=dict(PROVENANCE, cores=2, rows=rows)):
            self.assertIn("30–40 MiB: under 64 MiB", figures.memory())
        rows[0]["everyCore"] = 70
        with Results(memory=dict(PROVENANCE, cores=2, rows=rows)):
            self.assertIn("NOT under 64 MiB", figures.memory())

    def test_the_converter_comparison_is_computed_from_both_engines(self):
        measurements = [
            {"engine": engine, "quality": quality, "snr": {"0.30": snr, "0.40": snr - 10, "0.45": snr - 20},
             "realtime": speed}
            for engine, snr, speed in (("polyphase", 130.0, 2000.0), ("soxr", 140.0, 500.0),
                                       ("libsamplerate", 120.0, 100.0))
            for quality in ("fast", "medium", "best")]
        with Results(converters=dict(PROVENANCE, seconds=20, speedSeconds=60, ratio="0.999869", channels=2,
                                     measurements=measurements)):
            text = figures.converters()
        self.assertIn("`medium` 4.0× its speed, -10.0 / -10.0 / -10.0 dB", text)
        self.assertIn("| `fast` | 130.0 / 120.0 / 110.0 dB | 140.0 / 130.0 / 120.0 dB", text)

    def test_the_stretch_shortfall_names_the_worst_cell(self):
        rows = [
            {"material": "voice", "ratio": 0.8, "tool": "driftfix", "visqol": 4.0, "pesq": None},
            {"material": "voice", "ratio": 0.8, "tool": "R3", "visqol": 4.5, "pesq": None},
            {"material": "drums", "ratio": 2, "tool": "driftfix", "visqol": 4.2, "pesq": None},
            {"material": "drums", "ratio": 2, "tool": "R3", "visqol": 4.1, "pesq": None},
        ]
        text = figures.against_r3(rows, "visqol", "driftfix")
        self.assertIn("a mean of 4.100 against 4.300, higher in 1 of 2 cells", text)
        self.assertIn("largest shortfall 0.500 (voice at 0.8×)", text)

    def test_the_fleet_history_goal_turns_at_100_ms(self):
        night = {"night": 0, "pairs": 1000, "wall": 1.0, "peakKiB": 102400, "html": 100000, "json": 10**6,
                 "csv": 10**5, "journal": 10**6}
        data = dict(PROVENANCE, devices=10, takes=10, nights=1, rows=[night], scan={"wall": 0.5, "peakKiB": 51200},
                    alerts=[], render={"fcp": 300, "dcl": 250, "load": 260}, journalAt30Runs=10**7,
                    historyMs={"device": 20, "fleet": 20, "device30": 90, "fleet30": 90, "json30": 120})
        with Results(fleet=data):
            self.assertIn("(goal ≤ 100 ms: met)", figures.fleet_qa())
        data["historyMs"]["device30"] = 140
        with Results(fleet=data):
            self.assertIn("(goal ≤ 100 ms: NOT met)", figures.fleet_qa())

    def test_the_compressed_repair_reads_its_lengths_and_speeds(self):
        rows = [{"label": "driftfix process (aac in m4a)", "wall": 100.0, "peakMiB": 105.0},
                {"label": "driftfix process --parallel-encode", "wall": 80.0, "peakMiB": 217.0},
                {"label": "ffmpeg asetrate/aresample -c:a aac", "wall": 120.0, "peakMiB": 75.0}]
        phases = [{"phase": "decode (pass 2)", "seconds": 10.0, "share": 10.0},
                  {"phase": "encode + mux", "seconds": 80.0, "share": 80.0},
                  {"phase": "verify (decode and count)", "seconds": 10.0, "share": 10.0},
                  {"phase": "sum of phases", "seconds": 100.0, "share": 100.0}]
        frames = {"target": 1000, "driftfix": 1000, "parallel": 1000, "ffmpeg": 1109}
        data = dict(PROVENANCE, seconds=3600, ratio=0.999869, rows=rows, frames=frames, phases=phases)
        with Results(aac=data):
            text = figures.aac()
        self.assertIn("One pass runs at 1.20× the speed of ffmpeg's recipe and in segments at 1.50× (1.25× one pass;",
                      text)
        self.assertIn("decode to exactly the target, ffmpeg's to +109 frames", text)
        self.assertIn("| 1,109 (+109 frames) |", text)
        self.assertIn("Encoding is 80 % of the phases' time", text)
        self.assertIn("counting and verifying by decoding, 10 %", text)
        self.assertIn("goal 1.8× ffmpeg's recipe: NOT met", text)
        self.assertIn("| pipeline, 3600 s AAC 192 kb/s stereo in .m4a, -131 ppm |", text)
        frames["parallel"] = 999
        with Results(aac=data):
            self.assertIn("NOT both of driftfix's outputs decode to the target (exact: one pass)", figures.aac())
        rows[1]["wall"] = 60.0
        with Results(aac=data):
            self.assertIn("goal 1.8× ffmpeg's recipe: met", figures.aac())

    def test_the_day_by_sound_is_extrapolated_from_the_shoot_and_the_index(self):
        table = ["| hours | indexed ms |", "|---:|---:|", "| 100 | 20.0 (19-21) |", "| 1000 | 110.0 (100-120) |"]
        index = dict(PROVENANCE, table=table)
        runs = [{"out": False, "wall": w, "peakKiB": 102400} for w in (2.0, 1.9, 2.1)] + [
            {"out": True, "wall": 3.0, "peakKiB": 204800}]
        shoot = {"seconds": 3600, "clips": 25, "recorderSeconds": 7200, "runs": runs, "right": 36, "wrong": 0,
                 "missed": 0, "startErrorMs": 0.5, "driftErrorPPM": 0.1, "recorderDriftErrorPPM": 0.05,
                 "residualMs": 0.2}
        data = dict(PROVENANCE, prints=[{"sound": 600, "wall": 0.1}] * 3, shoot=shoot)
        with Results(sync=data, soundindex=index):
            text = figures.sync()
        # 2.0 s for 2 recorder-hours, scaled to 200: 200 s; a clip at 200 h: 20 + 90 x 100/900 = 30 ms, 2,000 of
        # them over 2 cores: 30 s; 230 s in all.
        self.assertIn("200 s, and each clip's search at 200 hours indexed, 30 ms", text)
        self.assertIn("about 3.8 minutes on this machine against the goal of 10 (met;", text)
        self.assertIn("| 0.60 (0.60–0.60) s |", text)
        self.assertIn("| 36 / 0 / 0 |", text)
        self.assertNotIn("FAILED", text)
        shoot["recorderDriftErrorPPM"] = None
        runs[3]["exit"] = 1
        with Results(sync=data, soundindex=index):
            self.assertNotIn("FAILED", figures.sync(), "exit 1 is a clip left for a person")
        runs[3]["exit"] = 2
        with Results(sync=data, soundindex=index):
            text = figures.sync()
        self.assertIn("0.10 ppm, -, 0.200 ms", text)
        self.assertIn("| runs that FAILED (their times are in the medians above) | 1 of 4 |", text)
        runs[:3] = [{"out": False, "wall": 6.0, "peakKiB": 1} for _ in range(3)]
        with Results(sync=data, soundindex=index):
            self.assertIn("against the goal of 10 (NOT met;", figures.sync())

    def test_a_chaos_night_that_lost_an_output_says_so(self):
        night = {"seed": 1, "files": 1000, "fileSeconds": 5, "kills": 3, "partitions": 3, "losses": 3, "healed": True,
                 "requeues": 7, "late": 1, "lost": 5, "undisturbed": 10.0, "chaos": 15.0, "exact": 1000,
                 "temporary": 0, "duplicates": 0, "undisturbedExact": 1000, "exit": 0}
        with Results(chaos_net=dict(PROVENANCE, nights=[night])):
            text = figures.chaos_net()
        self.assertIn("| 1,000 × 5 s | 1 | 3 kills, 3 partitions, 3 losses | 5 | 7 | 1 | 1,000 of 1,000 "
                      "| 10.0 s → 15.0 s (1.50×) |", text)
        self.assertIn("Nothing was lost or doubled", text)
        night.update(kills=1, partitions=1, losses=1)
        with Results(chaos_net=dict(PROVENANCE, nights=[night])):
            self.assertIn("| 1 kill, 1 partition, 1 loss |", figures.chaos_net())
        night["exact"] = 999
        with Results(chaos_net=dict(PROVENANCE, nights=[night])):
            self.assertIn("NOT every night came through whole", figures.chaos_net())

    def test_slurm_against_local_workers_is_the_best_of_each(self):
        data = dict(PROVENANCE, files=200, fileSeconds=5, local=[7.0, 6.5], slurm=[8.0, 7.8])
        with Results(slurm=data):
            text = figures.slurm()
        self.assertIn("took 8.00 s and 7.80 s, the same night with 2 local workers 7.00 s and 6.50 s", text)
        self.assertIn("Slurm at 1.20× the local wall time, 1.30 s more", text)
        self.assertFalse(text.startswith("NOT"))
        data["repaired"] = [200, 200, 150, 200]
        with Results(slurm=data):
            self.assertTrue(figures.slurm().startswith("NOT every night repaired all 200 (repaired: 200, 200, 150, 200)"))

    def test_the_movie_parser_is_timed_against_libavformat_by_medians(self):
        runs = [{"files": 3000, "own": own, "libavformat": av, "disagreeing": 0}
                for own, av in ((0.30, 4.0), (0.25, 4.5), (0.35, 5.0))]
        with Results(movieprobe=dict(PROVENANCE, runs=runs)):
            text = figures.movieprobe()
        self.assertIn("| scan's own box parser | 0.30 (0.25–0.35) | 10,000 |", text)
        self.assertIn("reads them 15.0× as fast; at that rate 100,000 references take about 10 s against 2.5 minutes", text)
        self.assertIn("more than the millisecond ffmpeg states: 0.", text)

    def test_a_chaos_night_with_a_wrong_output_is_not_called_sound(self):
        calm = {"night": "undisturbed", "wall": 50.0, "killed": 0, "poison": 0, "coordinator": 0, "lost": 0,
                "restarted": 0, "requeued": 0, "result": "exit 0, 1000 exact, 0 failed (0 no room), poison repaired"}
        seed = dict(calm, night="seed 11", wall=100.0, killed=60, requeued=1166,
                    result="exit 1, 837 exact, 165 failed (162 no room), poison failed, cut input failed")
        with Results(chaos=dict(PROVENANCE, files=1000, volumeMiB=94, nights=[calm, seed])):
            text = figures.chaos()
        self.assertIn("| seed 11 | 100.0 | 2.00 | 60 | 0 | 0 | 0 / 0 / 1,166 |", text)
        self.assertIn("Every output placed in every night has its exact length", text)
        seed["result"] += ", 3 WRONG"
        with Results(chaos=dict(PROVENANCE, files=1000, volumeMiB=94, nights=[calm, seed])):
            self.assertIn("NOT every night was sound", figures.chaos())

    def test_the_music_cases_are_summed_over_the_songs(self):
        rows = [{"song": song, "case": case, "clips": clips, "right": right, "wrong": 0, "left": left,
                 "worstMs": worst, "seconds": 1.0}
                for song, case, clips, right, left, worst in (
                    ("a", "excerpts", 18, 18, 0, 0.042), ("b", "excerpts", 8, 8, 0, 0.01),
                    ("a", "twice", 1, 0, 1, None), ("b", "twice", 1, 0, 1, None))]
        with Results(music=dict(PROVENANCE, rows=rows)):
            text = figures.music()
        self.assertIn("| excerpts of 12-30 s, whole song | 18 + 8 | 26 | 0 | 0 | 0.042 ms |", text)
        self.assertIn("| the same 40 s fed twice | 1 + 1 | 0 | 0 | 2 | - |", text)
        self.assertIn("No clip was placed at a wrong place.", text)
        rows[1]["wrong"] = 1
        with Results(music=dict(PROVENANCE, rows=rows)):
            self.assertIn("1 clip was placed at a WRONG place.", figures.music())

    def test_the_tour_shows_the_demo_output_as_printed_with_its_provenance_once(self):
        tour = dict(PROVENANCE, process="a.wav -> b.wav: verified", verifySync="b.wav: residual lag 0.015 ms: IN SYNC",
                    measure=["a.wav against the sound of a.mp4", "  model       clock"],
                    history=["DEVICE  #1", "! dev001  +79.9", "", "! dev001: started drifting"])
        with Results(tour=tour):
            self.assertEqual(figures.tour_block("process"), "```\na.wav -> b.wav: verified\n```\n")
            self.assertEqual(figures.tour_block("measure"), "```\na.wav against the sound of a.mp4\n  model       clock\n```\n")
            self.assertIn("\n\n! dev001: started drifting\n```", figures.tour_block("history"))
            verify = figures.tour_verify()
            self.assertTrue(verify.startswith("```\nb.wav: residual lag 0.015 ms: IN SYNC\n```\n"), verify)
            self.assertIn("from `bench-results/tour.json`: made up by test-figures.py", verify)
            self.assertNotIn("bench-results", figures.tour_block("history"))

    def test_an_output_block_with_figures_is_generated_or_dated(self):
        copied = "Text.\n\n```\nout.wav: verified, 0.16 s (39x realtime)\n```\n"
        self.assertEqual(len(figures.undated_outputs(copied, "a.md")), 1)
        self.assertIn("a.md:3:", figures.undated_outputs(copied, "a.md")[0])
        dated = "Text.\n\n<!-- dated: 2026-11-25, bench.sh as printed that day -->\n```\nout.wav: 0.16 s\n```\n"
        self.assertEqual(figures.undated_outputs(dated, "a.md"), [])
        generated = "<!-- figures: tour-process -->\n```\nout.wav: 0.16 s\n```\n<!-- end figures -->\n"
        self.assertEqual(figures.undated_outputs(generated, "a.md"), [])
        commands = "```sh\ndriftfix process a.wav b.wav --fade-in 0.5 s\n```\n```\nSources/\n  CPCM/\n```\n"
        self.assertEqual(figures.undated_outputs(commands, "a.md"), [])

    def test_a_measured_figure_in_prose_is_generated_or_dated(self):
        typed = "# Speed\n\nThe kernel runs fast. A repair of 600 s took 0.21 s on two cores.\n"
        found = figures.undated_prose(typed, "a.md")
        self.assertEqual(len(found), 1)
        self.assertIn("a.md:3:", found[0])
        wrapped = "Intro.\n\nMore text.\nThen a copy ran at 1.92× the synced copy.\n"
        self.assertIn("a.md:4:", figures.undated_prose(wrapped, "a.md")[0], "the line the sentence starts on")
        for measured in ["It peaked at 64 MiB for the hour.", "Dispatch 6,660 → 7,121 jobs/s.",
                         "The lookup took 29 ms at 1,000 hours.", "It passed 5 times, 31–34 s each (2026-11-25).",
                         "Measured: 200,000 inputs in 4 s.", "| case | 0.4 → 1.2 s |", "The index made it 1.7x faster."]:
            self.assertEqual(len(figures.undated_prose(measured + "\n", "a.md")), 1, measured)
        dated = ("Text.\n\n<!-- dated: 2026-11-29, three runs -->\nOn 2026-11-29 the print took 0.09 s.\n"
                 "<!-- end dated -->\n\nInline (<!-- dated: 2026-11-24, one run -->780 MiB on 2026-11-24<!-- end dated -->).\n")
        self.assertEqual(figures.undated_prose(dated, "a.md"), [])
        region = "<!-- figures: kernel -->\nThe default took 0.21 s, 3.2× ffmpeg.\n<!-- end figures -->\n"
        self.assertEqual(figures.undated_prose(region, "a.md"), [])
        caption = "Text.\n\nEach command 5 times, the median of them.\n\n" + region
        self.assertEqual(figures.undated_prose(caption, "a.md"), [], "the paragraph before a region is its method")
        for design in ["Hann windows of about 27 ms, a stopband of 120 dB.", "The job waits 10 s at its rename.",
                       "The row says `leads 300.0 → 315.7 ms` and \"clock wanders: -131 → -101 ppm\".",
                       "```\nout.wav took 0.16 s\n```"]:
            self.assertEqual(figures.undated_prose(design + "\n", "a.md"), [], design)

    def test_a_dated_marker_before_an_output_block_does_not_open_a_prose_record(self):
        text = ("<!-- dated: 2026-11-25, as printed -->\n```\nsox 0.16 s\n```\n\nThe default took 0.21 s.\n\n"
                "<!-- dated: 2026-11-26, one run -->\nIt took 0.3 s.\n<!-- end dated -->\n")
        found = figures.undated_prose(text, "a.md")
        self.assertEqual(len(found), 1)
        self.assertIn("a.md:6:", found[0])


if __name__ == "__main__":
    unittest.main(verbosity=1)
