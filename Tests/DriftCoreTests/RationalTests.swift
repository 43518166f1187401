import Testing

@testable import DriftCore

@Suite("Rational numbers")
struct RationalTests {
    @Test(
        "decimal and fraction text parses exactly",
        arguments: [
            ("3600.0375", Rational(36_000_375, 10_000)),
            ("1001/1000", Rational(1001, 1000)),
            ("-0.5", Rational(-1, 2)),
            ("+2", Rational(2, 1)),
            ("1e-6", Rational(1, 1_000_000)),
            ("1.000131", Rational(1_000_131, 1_000_000)),
            (" 48000/44100 ", Rational(160, 147)),
            ("0.1/0.3", Rational(1, 3)),
            (".5", Rational(1, 2)),
        ])
    func parses(text: String, expected: Rational) throws {
        #expect(try Rational(parsing: text) == expected)
    }

    @Test(
        "bad text is refused with a reason",
        arguments: ["", "abc", "1.2.3", "1/0", "--1", "1e99", "12345678901234567890123", "1,5", "٣"])
    func refuses(text: String) {
        #expect(throws: RationalParseError.self) { try Rational(parsing: text) }
    }

    @Test("rounding to the nearest frame, halves away from zero")
    func rounding() {
        #expect(Rational(5, 2).multipliedRounded(by: 1) == 3)
        #expect(Rational(-5, 2).multipliedRounded(by: 1) == -3)
        #expect(Rational(7, 3).multipliedRounded(by: 1) == 2)
        #expect(Rational(1, 3).multipliedRounded(by: 2) == 1)
        // 1 ppm over 3 hours at 48 kHz: 518,400,000 × 1.000001 = 518,400,518.4
        #expect(Rational(1_000_001, 1_000_000).multipliedRounded(by: 518_400_000) == 518_400_518)
        #expect(Rational(Int64.max, 1).multipliedRounded(by: 2) == nil)
    }

    @Test("reduced form and ordering")
    func reduction() {
        let r = Rational(6, -4)
        #expect(r.numerator == -3 && r.denominator == 2)
        #expect(Rational(1, 3) < Rational(1, 2))
        #expect(Rational(1001, 1000).decimalString() == "1.001")
        #expect(Rational(1, 3).decimalString(maxFractionDigits: 3) == "0.333…")
    }
}

@Suite("Target length")
struct TargetLengthTests {
    @Test("seconds become frames in integers: no float error over long files")
    func secondsToFrames() throws {
        // 3 h 0.0375 s at 48 kHz: exactly 518,401,800 frames; a float path gives the same only by luck.
        #expect(
            try TargetLength.seconds(Rational(108_000_375, 10_000)).resolve(inputFrames: 1, sampleRate: 48_000)
                == 518_401_800)
        // Half a frame rounds up: 1/96000 s at 48 kHz is 0.5 frame.
        #expect(try TargetLength.seconds(Rational(3, 96_000)).resolve(inputFrames: 1, sampleRate: 48_000) == 2)
    }

    @Test("an audio reference at another rate")
    func referenceDuration() throws {
        // A 10-minute reference at 44.1 kHz matched by a 48 kHz recording.
        let target = try TargetLength.duration(frames: 26_460_000, sampleRate: 44_100)
            .resolve(inputFrames: 28_799_000, sampleRate: 48_000)
        #expect(target == 28_800_000)
        // 1001 frames at 30000 Hz is 0.0333667 s; at 48 kHz 1601.6 frames → 1602.
        #expect(
            try TargetLength.duration(frames: 1001, sampleRate: 30_000).resolve(inputFrames: 1, sampleRate: 48_000)
                == 1602)
    }

    @Test("ratios scale the input length")
    func ratio() throws {
        #expect(
            try TargetLength.ratio(Rational(1000, 1001)).resolve(inputFrames: 172_800_000, sampleRate: 48_000)
                == 172_627_373)
        #expect(try TargetLength.frames(42).resolve(inputFrames: 7, sampleRate: 48_000) == 42)
    }

    @Test("zero, negative and overflowing targets are refused")
    func invalid() {
        #expect(throws: TargetLengthError.self) { try TargetLength.frames(0).resolve(inputFrames: 1, sampleRate: 1) }
        #expect(throws: TargetLengthError.self) {
            try TargetLength.seconds(Rational(-1, 1)).resolve(inputFrames: 1, sampleRate: 48_000)
        }
        #expect(throws: TargetLengthError.self) {
            try TargetLength.ratio(Rational(Int64.max, 1)).resolve(inputFrames: 1 << 40, sampleRate: 48_000)
        }
        #expect(throws: TargetLengthError.self) {
            try TargetLength.duration(frames: 10, sampleRate: 0).resolve(inputFrames: 1, sampleRate: 48_000)
        }
    }
}
