import DriftCore

/// An `AudioSource` over interleaved samples already in memory: for benchmarks that must leave file I/O out,
/// and for tests.
public final class MemoryAudioSource: AudioSource {
    public let channelCount: Int
    public let frameCount: Int64
    private let samples: [Float]
    private var position = 0

    /// - Parameter declaredFrames: the length to promise; defaults to the samples held. A larger value makes a
    ///   source that ends early, as a truncated file would.
    public init(_ samples: [Float], channels: Int, declaredFrames: Int64? = nil) {
        precondition(channels > 0 && samples.count % channels == 0, "whole frames only")
        self.samples = samples
        self.channelCount = channels
        self.frameCount = declaredFrames ?? Int64(samples.count / channels)
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let count = min(frames, samples.count / channelCount - position)
        guard count > 0 else { return 0 }
        samples.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            buffer.update(from: base + position * channelCount, count: count * channelCount)
        }
        position += count
        return count
    }
}
