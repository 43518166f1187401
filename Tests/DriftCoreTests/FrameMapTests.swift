import DriftCore
import Testing

@Suite("Frame map: where a recording's moments land in its repair")
struct FrameMapTests {
    @Test("a length change maps every position to the nearest frame of the linear map, exactly, at any length")
    func linear() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let input = Int64.random(in: 1...40_000_000_000, using: &rng)
            let output = input + Int64.random(in: -input / 100...input / 100, using: &rng)
            let map = FrameMap(inputFrames: input, kept: 0..<input, streamFrames: input, outputFrames: output)
            let position = Int64.random(in: 0...input, using: &rng)
            // The exact quotient, rounded half up, from 128-bit integers computed here.
            let exact = (Int128(position) * Int128(output) * 2 + Int128(input)) / (2 * Int128(input))
            #expect(map.map(position) == (Int64(exact), .kept))
        }
        let identity = FrameMap.identity(frames: 1000)
        #expect(identity.map(0) == (0, .kept) && identity.map(1000) == (1000, .kept))
    }

    @Test("a trim, silence before, sound re-inserted and a reversal, each as the repair applies it")
    func operations() {
        // Kept 100..<1100, 50 frames of silence before, 20 frames put back before stream position 550.
        let map = FrameMap(
            inputFrames: 1200, kept: 100..<1100, leadingFrames: 50, inserts: [.init(at: 550, frames: 20)],
            streamFrames: 1070, outputFrames: 1070)
        #expect(map.map(100) == (50, .kept))
        #expect(map.map(40) == (50, .trimmed), "before the kept part: at its start")
        #expect(map.map(1150) == (1050 + 20, .trimmed), "after it: at its end")
        #expect(map.map(599) == (549, .kept))
        #expect(map.map(600) == (570, .atFill), "the sample after the loss: after the re-inserted sound")
        #expect(map.map(601) == (571, .kept))
        #expect(map.mapLength(from: 590, length: 20) == 40, "a region across the loss grows by the sound put back")
        let reversed = FrameMap(
            inputFrames: 1000, kept: 0..<1000, reversed: true, streamFrames: 1000, outputFrames: 1000)
        #expect(reversed.map(0) == (1000, .kept) && reversed.map(250) == (750, .kept))
        #expect(reversed.mapLength(from: 250, length: 100) == 100)
    }
}
