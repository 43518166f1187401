import DriftCore

/// Frames `range` of a seekable source, in order.
public final class TrimmedSource: AudioSource {
    public let channelCount: Int
    public let frameCount: Int64
    private let upstream: SeekableAudioSource
    private let range: Range<Int64>
    private var delivered: Int64 = 0

    public init(_ upstream: SeekableAudioSource, range: Range<Int64>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= upstream.frameCount && !range.isEmpty)
        self.upstream = upstream
        self.range = range
        self.channelCount = upstream.channelCount
        self.frameCount = Int64(range.count)
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        try take(frames) { try upstream.read(into: buffer, frames: $0) }
    }

    public var readsPlanes: Bool { upstream.readsPlanes }

    public func read(
        planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
        scratch: UnsafeMutablePointer<Float>
    ) throws -> Int {
        try take(frames) { try upstream.read(planes: planes, offset: offset, frames: $0, scratch: scratch) }
    }

    /// Up to `frames` frames of the range, read by `read` (given how many it may read), from the range's start.
    private func take(_ frames: Int, _ read: (Int) throws -> Int) throws -> Int {
        if delivered == 0 && range.lowerBound > 0 { try upstream.seek(toFrame: range.lowerBound) }
        let wanted = Int(min(Int64(frames), frameCount - delivered))
        guard wanted > 0 else { return 0 }
        let got = try read(wanted)
        delivered += Int64(got)
        return got
    }
}

/// Frames `range` of a seekable source, last frame first: the samples themselves run backwards.
///
/// The file is read backwards in blocks (seek, read one block, reverse it in place), so memory stays one block.
public final class ReversedSource: AudioSource {
    public let channelCount: Int
    public let frameCount: Int64
    private let upstream: SeekableAudioSource
    private let start: Int64
    private var cursor: Int64  // frames before this are still to be delivered

    public init(_ upstream: SeekableAudioSource, range: Range<Int64>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= upstream.frameCount && !range.isEmpty)
        self.upstream = upstream
        self.channelCount = upstream.channelCount
        self.frameCount = Int64(range.count)
        self.start = range.lowerBound
        self.cursor = range.upperBound
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let count = Int(min(Int64(frames), cursor - start))
        guard count > 0 else { return 0 }
        try upstream.seek(toFrame: cursor - Int64(count))
        var filled = 0
        while filled < count {
            let got = try upstream.read(into: buffer + filled * channelCount, frames: count - filled)
            guard got > 0 else {
                throw DSPError.lengthMismatch(target: frameCount, produced: frameCount - cursor + Int64(filled))
            }
            filled += got
        }
        // Reverse the frame order in place; channels within a frame stay in order.
        var (low, high) = (0, count - 1)
        while low < high {
            for c in 0..<channelCount {
                let (a, b) = (low * channelCount + c, high * channelCount + c)
                (buffer[a], buffer[b]) = (buffer[b], buffer[a])
            }
            low += 1
            high -= 1
        }
        cursor -= Int64(count)
        return count
    }
}

/// Frames `range` of any source: seeked to where it can seek, otherwise read and discarded up to the start (a
/// compressed stream decoded in order).
public final class SpanSource: AudioSource {
    public let channelCount: Int
    public let frameCount: Int64
    private let upstream: AudioSource
    private let range: Range<Int64>
    private var started = false
    private var delivered: Int64 = 0

    public init(_ upstream: AudioSource, range: Range<Int64>) {
        precondition(range.lowerBound >= 0 && !range.isEmpty)
        self.upstream = upstream
        self.range = range
        channelCount = upstream.channelCount
        // The caller bounds the range by the frames it counted: a compressed stream's stated length may be an
        // estimate, or 0 where its container states none (Matroska).
        frameCount = Int64(range.count)
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        if !started {
            started = true
            if let seekable = upstream as? SeekableAudioSource {
                if range.lowerBound > 0 { try seekable.seek(toFrame: range.lowerBound) }
            } else {
                var skipped: Int64 = 0
                while skipped < range.lowerBound {
                    let got = try upstream.read(
                        into: buffer, frames: Int(min(Int64(frames), range.lowerBound - skipped)))
                    if got == 0 { break }
                    skipped += Int64(got)
                }
            }
        }
        let wanted = Int(min(Int64(frames), frameCount - delivered))
        guard wanted > 0 else { return 0 }
        let got = try upstream.read(into: buffer, frames: wanted)
        delivered += Int64(got)
        return got
    }
}
