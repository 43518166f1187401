import DriftCore
import Testing

@Suite("EngineChoice: auto per quality, and what a plan's fingerprint names")
struct EngineChoiceTests {
    @Test("auto takes soxr at fast and medium, libsamplerate at best; a named engine is itself at every quality")
    func resolution() {
        #expect(EngineChoice.default == .auto)
        #expect(EngineChoice.auto.engine(for: .fast) == .soxr)
        #expect(EngineChoice.auto.engine(for: .medium) == .soxr)
        #expect(EngineChoice.auto.engine(for: .best) == .libsamplerate)
        for quality in ResampleQuality.allCases {
            #expect(EngineChoice.soxr.engine(for: quality) == .soxr)
            #expect(EngineChoice.libsamplerate.engine(for: quality) == .libsamplerate)
        }
    }

    @Test("only soxr asked for by name changes a plan: auto and libsamplerate (the old default) stay unnamed")
    func plan() {
        #expect(EngineChoice.auto.namedInPlan == .libsamplerate)
        #expect(EngineChoice.libsamplerate.namedInPlan == .libsamplerate)
        #expect(EngineChoice.soxr.namedInPlan == .soxr)
    }
}
