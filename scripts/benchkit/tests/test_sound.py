"""The sound sections' readers of printed output and their scoring against generated truths, on lines and reports
captured from real runs (driftfix-bench, driftfix sync, scripts/demo.sh)."""
import unittest

from benchkit.sections import sound

SHOOT = "/tmp/soundh/work/shoot-300-4"
LOOP = "/tmp/soundh/work/music-Kevin_MacLeod_-_Vibe_Ace-loop"
TWICE = "/tmp/soundh/work/music-Kevin_MacLeod_-_Vibe_Ace-twice"


class PrintedLinesTest(unittest.TestCase):
    def test_prints(self):
        text = ("print of sync-print.wav: 600 s of sound in 0.45 s: 1344x realtime, 96017 bytes\n"
                "print of sync-print.wav: 600 s of sound in 0.29 s: 2074x realtime, 96017 bytes\n")
        self.assertEqual(sound.prints(text), [{"sound": 600.0, "wall": 0.45}, {"sound": 600.0, "wall": 0.29}])

    def test_movie_runs(self):
        text = ("200 MP4/MOV references: own box parser 0.01 s (30544 files/s), libavformat 1.18 s (169 files/s): "
                "180.6x; disagreeing: 0\n"
                "200 MP4/MOV references: own box parser 0.02 s (13177 files/s), libavformat 1.11 s (180 files/s): "
                "73.3x; disagreeing: 0\n")
        self.assertEqual(sound.movie_runs(text), [
            {"files": 200, "own": 0.01, "libavformat": 1.18, "disagreeing": 0},
            {"files": 200, "own": 0.02, "libavformat": 1.11, "disagreeing": 0}])

    def test_table_lines(self):
        text = ("Recording: a close stereo 24-bit microphone on a faulty clock\n\n"
                "| case | truth | measured | error | residual after repair | independent check | measure ×RT |\n"
                "| --- | --- | --- | --- | --- | --- | --- |\n"
                "| silence-only reference | unmeasurable | unmeasurable: the reference is silent | none | — | — "
                "| 1957 |\n")
        lines = sound.table_lines(text)
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[2].startswith("| silence-only reference |"))
        self.assertTrue(lines[2].endswith("| 1957 |"))

    def test_an_unchanged_night(self):
        summary = "0 repaired, 4 unchanged, 4 skipped, 0 refused, 0 failed, 0 unfinished\n"
        self.assertTrue(sound.repaired_nothing(summary))
        self.assertFalse(sound.repaired_nothing("10 repaired, 0 unchanged, 4 skipped, 0 refused, 0 failed, 0 "
                                                "unfinished\n"))
        self.assertEqual(sound.last_line("driftfix: ...\n" + summary), summary.strip())
        self.assertEqual(sound.last_line(""), "")


def heard(recording, start, drift, coverage):
    return {"coverage": coverage, "driftPPM": drift, "recording": f"{SHOOT}/audio/{recording}",
            "recordingStartSeconds": start}


def match(reference, recording, status, start, pooled, drift):
    return {"reference": f"{SHOOT}/camera/{reference}", "recording": f"{SHOOT}/audio/{recording}", "status": status,
            "recordingStartSeconds": start, "recordingDriftPPM": pooled, "output": None,
            "content": {"driftPPM": drift, "residualMs": None}}


class ScoreShootTest(unittest.TestCase):
    # Two clips of a 300 s, 4-clip shoot and what `driftfix sync --format json` found for them. C0004 was heard by
    # ZOOM0002 for 44 % of it only: not a place the truth expects, so its match there counts as wrong.
    truth = [{"reference": f"{SHOOT}/camera/C0003.MP4", "heardBy": [
        heard("ZOOM0001.WAV", 174.04604780743315, -131, 1), heard("ZOOM0002.WAV", 71.07290175138863, 57, 1)]},
        {"reference": f"{SHOOT}/camera/C0004.MP4", "heardBy": [
            heard("ZOOM0001.WAV", 223.32800094522304, -131, 0.9999999999999996),
            heard("ZOOM0002.WAV", 120.36412111024337, 57, 0.4357969079550205)]}]
    report = {"groups": [{"matches": [
        match("C0003.MP4", "ZOOM0001.WAV", "alternative", 174.0460287623993, -131.07869131251522, -131.09977960745755),
        match("C0003.MP4", "ZOOM0002.WAV", "used", 71.07287506111739, 56.97353063057011, 57.1068899413163)]}, {
        "matches": [
            match("C0004.MP4", "ZOOM0001.WAV", "used", 223.3279759502245, -131.07869131251522, -131.0678290826761),
            match("C0004.MP4", "ZOOM0002.WAV", "alternative", 120.36409323771082, 56.97353063057011,
                  57.16509562692096)]}], "leftForAPerson": []}

    def test_places_and_errors(self):
        places = sound.score_shoot(self.truth, self.report)
        self.assertEqual((places["right"], places["wrong"], places["missed"]), (3, 1, 0))
        self.assertAlmostEqual(places["startErrorMs"], 0.026690271241136543, places=12)
        self.assertAlmostEqual(places["driftErrorPPM"], 0.1068899413162967, places=12)
        self.assertAlmostEqual(places["recorderDriftErrorPPM"], 0.07869131251521821, places=12)
        self.assertIsNone(places["residualMs"])

    def test_uncertain_matches_are_not_counted_and_a_lost_place_is_missed(self):
        report = {"groups": [{"matches": [dict(m, status="uncertain") if m["recording"].endswith("ZOOM0002.WAV")
                                          else m for m in group["matches"]]} for group in self.report["groups"]]}
        places = sound.score_shoot(self.truth, report)
        self.assertEqual((places["right"], places["wrong"], places["missed"]), (2, 0, 1))

    def test_a_cut_clips_residual(self):
        cut = dict(self.report["groups"][0]["matches"][1], output=f"{SHOOT}-out/C0003.wav",
                   content={"driftPPM": 57.1068899413163, "residualMs": 0.02})
        places = sound.score_shoot(self.truth[:1], {"groups": [{"matches": [cut]}]})
        self.assertEqual(places["residualMs"], 0.02)
        self.assertEqual(places["missed"], 1)

    def test_nothing_found(self):
        places = sound.score_shoot(self.truth, {"groups": []})
        self.assertEqual((places["right"], places["wrong"], places["missed"]), (0, 0, 3))
        self.assertIsNone(places["startErrorMs"])

    def test_absolute_truth(self):
        truth = sound.absolute_truth([{"reference": "camera/C0001.MP4", "heardBy": [
            {"recording": "audio/ZOOM0001.WAV"}]}])
        self.assertTrue(truth[0]["reference"].startswith("/"))
        self.assertTrue(truth[0]["heardBy"][0]["recording"].endswith("/audio/ZOOM0001.WAV"))


def song_match(case, status, start):
    return {"reference": f"{case}/camera/C0001.MP4", "recording": f"{case}/audio/REC0001.WAV", "status": status,
            "recordingStartSeconds": start}


class ScoreMusicTest(unittest.TestCase):
    # Vibe Ace's loop: a 10 s phrase looped, the clip at 25.000875 s; sync used the right place and listed the
    # others as uncertain.
    loop_truth = [{"heardBy": [{"recording": f"{LOOP}/audio/REC0001.WAV", "recordingStartSeconds": 25.000875}],
                   "reference": f"{LOOP}/camera/C0001.MP4", "seconds": 25, "take": 3}]
    loop = {"groups": [{"matches": [song_match(LOOP, "used", 25.000878983217255),
                                    song_match(LOOP, "uncertain", -4.858806413984294),
                                    song_match(LOOP, "uncertain", 54.99809431550274),
                                    song_match(LOOP, "uncertain", 4.940845586859458)]}]}

    def test_a_right_clip(self):
        right, wrong, left, worst = sound.score_music(self.loop_truth, self.loop)
        self.assertEqual((right, wrong, left), (1, 0, 0))
        self.assertAlmostEqual(worst * 1000, 0.003983217254699412, places=12)

    def test_a_clip_left_for_a_person(self):
        # The same 40 s fed twice: every place uncertain, the sure answer.
        truth = [{"heardBy": [{"recording": f"{TWICE}/audio/REC0001.WAV", "recordingStartSeconds": 73.99556}],
                  "reference": f"{TWICE}/camera/C0001.MP4", "seconds": 18, "take": 1}]
        report = {"groups": [{"matches": [song_match(TWICE, "uncertain", 73.99554711101544),
                                          song_match(TWICE, "uncertain", 13.99914630291161)]}]}
        self.assertEqual(sound.score_music(truth, report), (0, 0, 1, 0.0))

    def test_a_wrong_place(self):
        # The loop's clip used at the next repeat of the phrase (made from the real report: the place moved).
        report = {"groups": [{"matches": [song_match(LOOP, "used", 54.99809431550274)]}]}
        self.assertEqual(sound.score_music(self.loop_truth, report), (0, 1, 0, 0.0))


# scripts/demo.sh's output, the lines the README shows and those around them (a real run, shortened).
TOUR_LOG = """\
== editing in the same pass: first 5 s of take02, 0.8x tempo (pitch kept), 44.1 kHz, 0.5 s equal-power fades
demo-output/media/camA/take02.wav -> demo-output/repaired/camA/take02-excerpt.wav: WAVEX 24-bit 44100 Hz stereo, \
17282264 -> 275625 frames (duration +250000.00 ppm), trim 0..<240000, stretch (--tempo), rate 48000->44100 Hz, \
fade-in 22050 frames equal-power, fade-out 22050 frames equal-power by phase vocoder, medium quality (polyphase), \
verified, 0.10 s (62x realtime)
   the sound, measured here (driftfix measure RECORDING REFERENCE):
   demo-output/sound/interview/take08.wav against the sound of demo-output/sound/interview/take08.mp4
     model       clock
     offset      +1500.019 ms ± 0.006 ms (the recording started after the reference)
     drift       -131.024 ppm ± 0.087 ppm (95 %)
     headers     disagree: late start
     confidence  0.73 (122 of 156 windows with sound agree, scatter 0.016 ms)
   demo-output/sound/field/take09.wav against the sound of demo-output/sound/field/take09.mp4
     model       dropouts
== and checked again from the outside: driftfix verify OUT --sync REFERENCE
demo-output/repaired-by-sound/interview/take08.wav: residual lag 0.015 ms (limit 1.000 ms) across 122 windows: IN SYNC
demo-output/repaired-by-sound/field/take09.wav: residual lag 0.022 ms (limit 1.000 ms) across 125 windows: IN SYNC
== driftfix history: the alerting devices first
   devices: 2 alerting of 6; median clock error of their recordings per run (ppm)
   DEVICE    #1 11-30 15:53  #2 11-30 15:54  SPREAD  FILES       BY  START ms
   ! dev001            +0.3           +79.9     0.0      5  lengths         -
     dev005           -47.0           -47.0     0.1      5    sound    -670.7
   
   ! dev001: started drifting: +79.9 ppm in the latest run, +0.3 ppm before (median of 1 run)
   dev005, started late every take: clock -47.0, -47.0 ppm per night (measured by content), start -767, -671 ms; \
reported right
== originals untouched; repaired files in demo-output/repaired
"""


class TourOutputsTest(unittest.TestCase):
    def test_the_readmes_outputs(self):
        outputs = sound.tour_outputs(TOUR_LOG)
        self.assertTrue(outputs["process"].startswith("demo-output/media/camA/take02.wav -> "))
        self.assertTrue(outputs["process"].endswith("(62x realtime)"))
        self.assertEqual(outputs["measure"], [
            "demo-output/sound/interview/take08.wav against the sound of demo-output/sound/interview/take08.mp4",
            "  model       clock",
            "  offset      +1500.019 ms ± 0.006 ms (the recording started after the reference)",
            "  drift       -131.024 ppm ± 0.087 ppm (95 %)",
            "  headers     disagree: late start",
            "  confidence  0.73 (122 of 156 windows with sound agree, scatter 0.016 ms)"])
        self.assertEqual(outputs["verifySync"], "demo-output/repaired-by-sound/interview/take08.wav: residual lag "
                         "0.015 ms (limit 1.000 ms) across 122 windows: IN SYNC")
        # Up to the recorder that started late (its line is the prose's, not the table's).
        self.assertEqual(outputs["history"], [
            "devices: 2 alerting of 6; median clock error of their recordings per run (ppm)",
            "DEVICE    #1 11-30 15:53  #2 11-30 15:54  SPREAD  FILES       BY  START ms",
            "! dev001            +0.3           +79.9     0.0      5  lengths         -",
            "  dev005           -47.0           -47.0     0.1      5    sound    -670.7",
            "",
            "! dev001: started drifting: +79.9 ppm in the latest run, +0.3 ppm before (median of 1 run)"])

    def test_a_missing_output(self):
        with self.assertRaises(StopIteration):
            sound.tour_outputs("== the demo failed early\n")


if __name__ == "__main__":
    unittest.main()
