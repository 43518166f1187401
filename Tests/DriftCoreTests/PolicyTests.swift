import Testing

import struct SystemPackage.FilePath

@testable import DriftCore

@Suite("Paths, times and policy")
struct PolicyTests {
    @Test(
        "glob patterns",
        arguments: [
            ("*.wav", "/media/cam1/take01.wav", true),
            ("*.wav", "take01.WAV", false),
            ("**/recorder-B/**", "/media/day1/recorder-B/t1.wav", true),
            ("**/recorder-B/**", "/media/day1/recorder-A/t1.wav", false),
            ("media/*/take??.wav", "media/cam1/take01.wav", true),
            ("media/*/take??.wav", "media/cam1/sub/take01.wav", false),
            ("/media/**/t?.wav", "/media/a/b/c/t1.wav", true),
            ("/media/**/t?.wav", "/media/t1.wav", true),
            ("**.flac", "/x/y/z.flac", true),
            ("lecture_*", "/srv/lecture_01.wav", true),
        ])
    func glob(pattern: String, path: String, matches: Bool) {
        #expect(GlobPattern(pattern).matches(pathText: path) == matches, "\(pattern) ~ \(path)")
        #expect(GlobPattern(pattern).matches(FilePath(path)) == matches, "\(pattern) ~ FilePath \(path)")
    }

    @Test("a path whose name is not UTF-8 matches by the rest of its text: the pattern sees the byte's escape")
    func globOnBytes() {
        // /m/caf\xE9.wav: Latin-1 bytes, as an old recorder's card holds them.
        let bytes: [CChar] =
            Array("/m/caf".utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".wav".utf8CString)
        let path = bytes.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
        #expect(GlobPattern("*.wav").matches(path) && GlobPattern("/m/caf*").matches(path))
        #expect(!GlobPattern("*.flac").matches(path) && !GlobPattern("/n/**").matches(path))
    }

    @Test("time points and trim ranges")
    func trim() throws {
        #expect(try TimePoint(parsing: "12.5") == .seconds(Rational(25, 2)))
        #expect(try TimePoint(parsing: "600000f") == .frames(600_000))
        #expect(throws: RationalParseError.self) { try TimePoint(parsing: "-1") }
        #expect(throws: RationalParseError.self) { try TimePoint(parsing: "1.5f") }
        let range = try TrimRange(parsing: "1:2.5")
        #expect(try range.frames(in: 480_000, sampleRate: 48_000).get() == 48_000..<120_000)
        #expect(try TrimRange(parsing: ":100f").frames(in: 480_000, sampleRate: 48_000).get() == 0..<100)
        #expect(try TrimRange(parsing: "9.5:").frames(in: 480_000, sampleRate: 48_000).get() == 456_000..<480_000)
        #expect(throws: EditError.self) { try TrimRange(parsing: "1:11").frames(in: 480_000, sampleRate: 48_000).get() }
        #expect(throws: EditError.self) { try TrimRange(parsing: "3:2").frames(in: 480_000, sampleRate: 48_000).get() }
        #expect(throws: RationalParseError.self) { try TrimRange(parsing: "12") }
    }

    @Test("first matching rule wins; otherwise the default")
    func policy() {
        let policy = RepairPolicy(rules: [
            MethodRule(pattern: GlobPattern("**/recorder-B/**"), method: .stretch, reason: "drops buffers"),
            MethodRule(pattern: GlobPattern("**/recorder-*/**"), method: .resample),
        ])
        #expect(
            policy.method(for: "/m/recorder-B/a.wav")
                == MethodChoice(method: .stretch, reason: "config rule \"**/recorder-B/**\": drops buffers"))
        #expect(policy.method(for: "/m/recorder-C/a.wav").method == .resample)
        #expect(policy.method(for: "/m/other/a.wav") == MethodChoice(method: .resample, reason: "default"))
    }

    @Test("a ratio with a rate change keeps the duration ratio exact")
    func ratioWithRate() throws {
        // 10 s at 44.1 kHz, 1001/1000 longer, at 48 kHz: 480,480 frames.
        #expect(
            try TargetLength.ratio(Rational(1001, 1000)).resolve(
                inputFrames: 441_000, inputRate: 44_100, outputRate: 48_000) == 480_480)
        #expect(
            try TargetLength.seconds(Rational(10, 1)).resolve(inputFrames: 1, inputRate: 44_100, outputRate: 48_000)
                == 480_000)
    }

    @Test("fade curves")
    func curves() {
        #expect(FadeCurve.linear.gain(0.25) == 0.25)
        #expect(abs(FadeCurve.equalPower.gain(0.5) - 0.5.squareRoot()) < 1e-15)
        #expect(FadeCurve.equalPower.gain(0) == 0 && abs(FadeCurve.equalPower.gain(1) - 1) < 1e-15)
    }
}
