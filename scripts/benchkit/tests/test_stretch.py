"""The stretch sections' pure parts: the frame counts of a stretch and the commands each tool is timed with."""
import unittest

from benchkit.sections import stretch


class FakeBench:
    driftfix = "/bin/driftfix"


class StretchedFramesTest(unittest.TestCase):
    def test_the_quality_sections_targets(self):
        # The round trips of the 10 s speech signal (480,000 frames) at 0.97, 1.25 and 2.
        self.assertEqual(stretch.stretched_frames(480000, 0.97), 465600)
        self.assertEqual(stretch.stretched_frames(480000, 1.25), 600000)
        self.assertEqual(stretch.stretched_frames(480000, 2), 960000)

    def test_the_speed_sections_targets(self):
        # A song looped to 10 s and to the default 120 s, at 0.8 and 1.25.
        self.assertEqual(stretch.stretched_frames(10 * 48000, 0.8), 384000)
        self.assertEqual(stretch.stretched_frames(10 * 48000, 1.25), 600000)
        self.assertEqual(stretch.stretched_frames(120 * 48000, 0.8), 4608000)

    def test_a_half_frame_rounds_up(self):
        self.assertEqual(stretch.stretched_frames(3, 0.5), 2)
        self.assertEqual(stretch.stretched_frames(5, 0.5), 3)


class SpeedCommandsTest(unittest.TestCase):
    def test_every_tool_at_0_8(self):
        commands = stretch.speed_commands(FakeBench(), "song.wav", "st.wav", 384000, 0.8)
        self.assertEqual(len(commands), len(stretch.SPEED_TOOLS))
        self.assertEqual(commands[0], ["/bin/driftfix", "process", "song.wav", "st.wav", "--method", "stretch",
                                       "--to-frames", "384000", "-q", "-y"])
        self.assertEqual(commands[1][-4:], ["--stretch-engine", "vocoder", "-q", "-y"])
        self.assertEqual(commands[2][-4:], ["--stretch-engine", "wsola", "-q", "-y"])
        # Rubber Band is told the duration in seconds (R3, then R2), sox the tempo (1 / ratio).
        self.assertEqual(commands[3], ["rubberband", "-q", "-3", "--centre-focus", "-D", "8.000000000", "song.wav",
                                       "st.wav"])
        self.assertEqual(commands[4][:3], ["rubberband", "-q", "-2"])
        self.assertEqual(commands[5], ["sox", "song.wav", "st.wav", "tempo", "1.2500000000"])

    def test_the_tools_names_are_the_results_names(self):
        # figures.py's stretch-speed table finds R3's row by this name.
        self.assertEqual([tool for _, tool in stretch.SPEED_TOOLS],
                         ["driftfix", "driftfix:vocoder", "driftfix:wsola", "R3", "R2", "sox"])


if __name__ == "__main__":
    unittest.main()
