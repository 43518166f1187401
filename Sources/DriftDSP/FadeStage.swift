import DriftCore
import Foundation

/// Fades the start and/or end of its upstream, sample-exact.
///
/// Fade-in gain at frame p (of F) is curve(p / F): the first frame is silent, frame F is untouched. Fade-out gain
/// at frame p is curve((last − p) / F): the last frame is silent. Overlapping fades multiply.
public final class FadeStage: AudioSource {
    public let channelCount: Int
    public let frameCount: Int64
    private let upstream: AudioSource
    public var convertsAhead: Bool { upstream.convertsAhead }
    private let fadeIn: FadeSpan?
    private let fadeOut: FadeSpan?
    private var position: Int64 = 0

    public init(_ upstream: AudioSource, fadeIn: FadeSpan?, fadeOut: FadeSpan?) {
        precondition((fadeIn?.frames ?? 0) <= upstream.frameCount && (fadeOut?.frames ?? 0) <= upstream.frameCount)
        self.upstream = upstream
        self.channelCount = upstream.channelCount
        self.frameCount = upstream.frameCount
        self.fadeIn = fadeIn.flatMap { $0.frames > 0 ? $0 : nil }
        self.fadeOut = fadeOut.flatMap { $0.frames > 0 ? $0 : nil }
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let got = try upstream.read(into: buffer, frames: frames)
        fade(buffer, frames: got)
        return got
    }

    public func view(frames: Int, scratch: UnsafeMutablePointer<Float>) throws -> UnsafeMutableBufferPointer<Float> {
        let next = try upstream.view(frames: frames, scratch: scratch)
        if let base = next.baseAddress { fade(base, frames: next.count / channelCount) }
        return next
    }

    /// Applies the fades to the next `got` frames, in place.
    private func fade(_ buffer: UnsafeMutablePointer<Float>, frames got: Int) {
        if let fade = fadeIn, position < fade.frames {
            let end = Int(min(Int64(got), fade.frames - position))
            for i in 0..<end {
                let gain = Float(fade.curve.gain(Double(position + Int64(i)) / Double(fade.frames)))
                scale(buffer + i * channelCount, by: gain)
            }
        }
        if let fade = fadeOut, position + Int64(got) > frameCount - fade.frames {
            let begin = Int(max(0, frameCount - fade.frames - position))
            for i in begin..<got {
                let remaining = frameCount - 1 - (position + Int64(i))
                let gain = Float(fade.curve.gain(Double(remaining) / Double(fade.frames)))
                scale(buffer + i * channelCount, by: gain)
            }
        }
        position += Int64(got)
    }

    private func scale(_ frame: UnsafeMutablePointer<Float>, by gain: Float) {
        for c in 0..<channelCount { frame[c] *= gain }
    }
}
