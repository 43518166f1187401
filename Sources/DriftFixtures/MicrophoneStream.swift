import Foundation

/// One microphone's signal, rendered block by block with the filters' and the room's state carried across blocks, so
/// memory stays flat however long the scene.
public final class MicrophoneStream {
    public enum Side: Sendable { case recording, reference }

    private let setup: TwoMicrophones
    private let side: Side
    private let scene: Scene
    private let total: Int
    private var position = 0
    private var filter: Colour
    private var random: Noise
    /// The reference's room: (delay in samples, gain), and the last `maxDelay` dry samples before the block.
    private var taps: [(Int, Float)] = []
    private var maxDelay = 0
    private var history: [Float] = []
    /// Per-block buffers, grown to the largest block asked for: the dry scene (after `maxDelay` samples of history),
    /// the room's sum of it, and the microphone's colouring.
    private var dry: [Float] = []
    private var wet: [Float] = []
    private var coloured: [Double] = []

    public init(_ setup: TwoMicrophones, side: Side) {
        self.setup = setup
        self.side = side
        scene = Scene(sound: setup.sound, seed: setup.seed, length: setup.sceneSeconds)
        switch side {
        case .recording:
            total = setup.recordingFrames
            filter = Colour(sampleRate: setup.sampleRate, highpass: 120, lowpass: 6000, poles: 1)
            random = Noise(seed: setup.seed &+ 11 &+ setup.microphoneSeed)
        case .reference:
            total = setup.referenceFrames
            filter = Colour(sampleRate: setup.sampleRate, highpass: 200, lowpass: 3500, poles: 2)
            random = Noise(seed: setup.seed &+ 29 &+ setup.microphoneSeed)
            // Early reflections and a sparse tail, up to 80 ms.
            taps = [(0, 1)]
            for j in 0..<24 {
                let delay = 0.004 + 0.076 * random.uniform()
                taps.append(
                    (
                        Int(delay * Double(setup.sampleRate)),
                        Float(0.5 * exp(-Double(j) / 8) * (random.uniform() < 0.5 ? -1 : 1))
                    ))
            }
            maxDelay = taps.map(\.0).max() ?? 0
            history = [Float](repeating: 0, count: maxDelay)
        }
    }

    /// Fills up to `count` samples; 0 at the end.
    public func read(into out: UnsafeMutablePointer<Float>, count: Int) -> Int {
        let n = min(count, total - position)
        guard n > 0 else { return 0 }
        let rate = Double(setup.sampleRate)
        if coloured.count < n {
            dry = [Float](repeating: 0, count: maxDelay + n)
            wet = [Float](repeating: 0, count: n)
            coloured = [Double](repeating: 0, count: n)
        }
        for i in 0..<(maxDelay + n) { dry[i] = i < maxDelay ? history[i] : 0 }
        // The per-sample loops work on locals: a class's stored properties cost an exclusivity check per access.
        var filter = self.filter
        var random = self.random
        let noise = setup.noise
        switch side {
        case .recording:
            for (start, count, t0, step) in recordingRuns(position: position, count: n, rate: rate) {
                scene.render(into: &dry, at: start - position, count: count, from: t0, step: step)
            }
            filter.process(dry, count: n, into: &coloured)
            for i in 0..<n { out[i] = Float(coloured[i] + noise * random.gaussian()) }
        case .reference:
            scene.render(
                into: &dry, at: maxDelay, count: n, from: setup.referenceStart + Double(position) / rate, step: 1 / rate
            )
            // The room, tap by tap: each sample still sums its taps in their order.
            wet.withUnsafeMutableBufferPointer { wet in
                dry.withUnsafeBufferPointer { dry in
                    for i in 0..<n { wet[i] = 0 }
                    for (delay, gain) in taps {
                        let source = dry.baseAddress! + maxDelay - delay
                        for i in 0..<n { wet[i] += gain * source[i] }
                    }
                }
            }
            filter.process(wet, count: n, into: &coloured)
            let twiceNoise = 2 * noise
            for i in 0..<n { out[i] = Float(0.6 * coloured[i] + twiceNoise * random.gaussian()) }
            for i in 0..<maxDelay { history[i] = dry[n + i] }
        }
        self.filter = filter
        self.random = random
        position += n
        return n
    }

    /// The recording's runs in `position..<position + count`, each at a uniform step through the scene: (first
    /// frame, frames, scene time of the first, step).
    private func recordingRuns(position: Int, count n: Int, rate: Double) -> [(Int, Int, Double, Double)] {
        // Segments between dropouts run at a uniform step through the scene.
        var cuts = setup.dropouts.map { Int(($0.at * rate).rounded()) }.filter {
            $0 > position && $0 < position + n
        }
        cuts = [position] + cuts + [position + n]
        // A wandering clock: pieces of 256 samples, each at its own uniform step between the exact scene times at
        // its ends (the clock's speed changes by parts per trillion within one), and a piece boundary at a step.
        if setup.wander != nil {
            var pieces = cuts
            for start in stride(from: position - position % 256 + 256, to: position + n, by: 256) {
                pieces.append(start)
            }
            if case .step(let at, _)? = setup.wander {
                let frame = Int((at * rate).rounded(.up))
                if frame > position && frame < position + n { pieces.append(frame) }
            }
            cuts = Array(Set(pieces)).sorted()
        }
        return (0..<(cuts.count - 1)).map { i in
            let t0 = setup.referenceTime(Double(cuts[i]) / rate)
            let step =
                setup.wander == nil
                ? setup.speed / rate
                : (setup.clockSeconds(Double(cuts[i + 1]) / rate) - setup.clockSeconds(Double(cuts[i]) / rate))
                    / Double(cuts[i + 1] - cuts[i])
            return (cuts[i], cuts[i + 1] - cuts[i], t0, step)
        }
    }

    /// The whole side in memory (test-sized scenes).
    public func all() -> [Float] {
        var out = [Float](repeating: 0, count: total)
        var done = 0
        while done < total {
            let got = out.withUnsafeMutableBufferPointer {
                read(into: $0.baseAddress! + done, count: min(65536, total - done))
            }
            if got == 0 { break }
            done += got
        }
        return out
    }
}
