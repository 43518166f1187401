import DriftCore
import Foundation

/// An `AudioSource` that renders a `TestSignal` on the fly, so DSP stages can be tested on hours of audio
/// without writing files. Each block starts from exactly computed phases and advances them by rotation, which
/// keeps rendering fast and exact to well below float precision.
public final class SignalSource: SeekableAudioSource {
    public let signal: TestSignal
    public var channelCount: Int { signal.channelCount }
    public var frameCount: Int64 { signal.length }
    private var position: Int64 = 0

    public init(_ signal: TestSignal) {
        self.signal = signal
    }

    /// Every block is rendered from its own position: a seek only moves it.
    public func seek(toFrame frame: Int64) throws { position = frame }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let count = Int(min(Int64(frames), frameCount - position))
        guard count > 0 else { return 0 }
        let channels = channelCount
        for c in 0..<channels {
            for i in 0..<count { buffer[i * channels + c] = 0 }
            for tone in signal.channels[c] {
                let startCycles = tone.cyclesPerSample * Double(position)
                let phase = 2 * .pi * ((startCycles - startCycles.rounded(.down)) + tone.phase)
                var re = cos(phase)
                var im = sin(phase)
                let stepRe = cos(2 * .pi * tone.cyclesPerSample)
                let stepIm = sin(2 * .pi * tone.cyclesPerSample)
                for i in 0..<count {
                    buffer[i * channels + c] += Float(tone.amplitude * im)
                    (re, im) = (re * stepRe - im * stepIm, re * stepIm + im * stepRe)
                }
            }
            let fadeEnd = Int64(signal.fadeFrames) + 1
            for i in 0..<count {
                let n = position + Int64(i)
                if n < fadeEnd || n > frameCount - 1 - fadeEnd {
                    buffer[i * channels + c] *= Float(signal.envelope(Double(n)))
                }
            }
        }
        position += Int64(count)
        return count
    }
}

/// Reads a whole source into memory (test-sized sources only).
public func drain(_ source: AudioSource, blockFrames: Int = 4096) throws -> [Float] {
    var out: [Float] = []
    out.reserveCapacity(Int(source.frameCount) * source.channelCount)
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * source.channelCount)
    defer { buffer.deallocate() }
    while true {
        let n = try source.read(into: buffer, frames: blockFrames)
        if n == 0 { break }
        out.append(contentsOf: UnsafeBufferPointer(start: buffer, count: n * source.channelCount))
    }
    return out
}
