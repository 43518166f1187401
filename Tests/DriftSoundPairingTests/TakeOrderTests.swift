import Testing

@testable import DriftSoundPairing

/// The takes' order as a witness for a clip whose sound repeats in a recording: the devices' calendar clocks differ by
/// one offset for the whole shoot, so the offset that puts every such clip at exactly one of its places chooses them.
@Suite("the takes' order: clips placed by when they were filmed")
struct TakeOrderTests {
    /// Three takes a minute apart in the recording; each clip's places are its moment of the song in each take.
    static func places(_ moment: Double) -> [Double] { [10, 70, 130].map { $0 + moment } }

    @Test("clips of different takes, the camera's clock an hour and 17.4 s off: each placed in its own take")
    func offsetClocks() {
        let offset = 3617.4
        // Clip 0 filmed take 2 at its 5 s, clip 1 take 0 at 22 s, clip 2 take 1 at 5 s (started a second late).
        let clips: [(started: Double, places: [Double])] = [
            (130 + 5 + offset, Self.places(5)), (10 + 22 + offset, Self.places(22)),
            (70 + 5 + 1 + offset, Self.places(5)),
        ]
        #expect(SoundPairing.takeOrder(clips) == [2, 0, 1])
    }

    @Test("one clip alone: only clocks that agree place it; an offset it cannot check places nothing")
    func oneClip() {
        #expect(SoundPairing.takeOrder([(75, Self.places(5))]) == [1], "the clocks agree to a second")
        #expect(SoundPairing.takeOrder([(75 + 3600, Self.places(5))]) == [nil], "an hour off: no witness")
    }

    @Test("clips whose times fit two offsets as well (the takes evenly spaced, the clips as far apart): nothing placed")
    func ambiguous() {
        // Two clips a minute apart, takes a minute apart: offsets 0 and 60 fit equally.
        let clips: [(started: Double, places: [Double])] = [(15, Self.places(5)), (75, Self.places(5))]
        #expect(SoundPairing.takeOrder(clips) == [nil, nil])
    }

    @Test("times that fit no single offset (a camera's clock reset between takes): nothing placed")
    func inconsistent() {
        let clips: [(started: Double, places: [Double])] = [(15, Self.places(5)), (500, Self.places(5))]
        #expect(SoundPairing.takeOrder(clips) == [nil, nil])
    }
}
