import DriftCore
import Testing

@Suite("EngineChoice: auto per quality, and what a plan's fingerprint names")
struct EngineChoiceTests {
    @Test("auto takes the polyphase kernel at medium and best, soxr at fast; a named engine is itself at every quality")
    func resolution() {
        #expect(EngineChoice.default == .auto)
        #expect(EngineChoice.auto.engine(for: .fast) == .soxr)
        #expect(EngineChoice.auto.engine(for: .medium) == .polyphase)
        #expect(EngineChoice.auto.engine(for: .best) == .polyphase)
        for quality in ResampleQuality.allCases {
            #expect(EngineChoice.soxr.engine(for: quality) == .soxr)
            #expect(EngineChoice.libsamplerate.engine(for: quality) == .libsamplerate)
            #expect(EngineChoice.polyphase.engine(for: quality) == .polyphase)
        }
    }

    @Test("the polyphase kernel runs within 1/2...2; beyond, libsoxr runs in its place; other engines run as named")
    func running() {
        for ratio in [0.5, 0.9, 0.999_869, 1, 1.001, 48_000.0 / 44_100, 2] {
            #expect(ResampleEngine.polyphase.running(ratio: ratio) == .polyphase, "\(ratio)")
        }
        for ratio in [0.499, 1.0 / 3, 2.001, 256] {
            #expect(ResampleEngine.polyphase.running(ratio: ratio) == .soxr, "\(ratio)")
        }
        #expect(ResampleEngine.libsamplerate.running(ratio: 3) == .libsamplerate)
        #expect(ResampleEngine.soxr.running(ratio: 1) == .soxr)
    }

    @Test("an engine asked for by name changes a plan: auto and libsamplerate (the old default) stay unnamed")
    func plan() {
        #expect(EngineChoice.auto.namedInPlan == .libsamplerate)
        #expect(EngineChoice.libsamplerate.namedInPlan == .libsamplerate)
        #expect(EngineChoice.soxr.namedInPlan == .soxr)
        #expect(EngineChoice.polyphase.namedInPlan == .polyphase)
    }
}
