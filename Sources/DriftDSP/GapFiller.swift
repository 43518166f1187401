import DriftCore
import Foundation

/// Re-inserts sound where a recorder lost buffers: at each gap, `frames` new frames go in just before upstream frame
/// `at`; every upstream frame passes through untouched (bit for bit), so the pitch and the audio between the gaps
/// are exactly the recording's.
///
/// The fill is a crossfaded repeat, aligned like WSOLA: its first half repeats the sound just before the gap, taken
/// from the place whose own lead-in best matches the gap's lead-in (normalised correlation over 10 ms, searched over
/// 15 ms: a pitch period or more), so it continues the waveform without a step; its second half is, mirrored, the
/// sound just after the gap, chosen so that it leads into the gap's end as the recording itself does; the halves meet
/// in a 10 ms raised-cosine crossfade. Why not silence: a hole in the middle of sound clicks twice and is heard as a
/// drop. Why not extrapolation (LPC): it rings on noise and decays over long gaps; a repeat of the neighbouring
/// sound keeps its texture for a whole lost buffer. Near the file's ends, where one side is missing, the other side
/// fills alone. Memory: the longest gap plus 25 ms on each side.
public final class GapFiller: AudioSource {
    /// One gap: `frames` new frames just before upstream frame `at` - the frame map's insert, the same fact.
    public typealias Gap = FrameMap.Insert

    /// The longest gap filled: ten seconds (a recorder losing more has failed, not dropped a buffer).
    public static let maximumGapSeconds = 10

    public let channelCount: Int
    public let frameCount: Int64
    private let upstream: AudioSource
    private let gaps: [Gap]
    private let matchFrames: Int
    private let searchFrames: Int
    private let crossfadeFrames: Int
    /// The last frames delivered, interleaved, oldest first (the left context of the next gap).
    private var history: [Float] = []
    private let historyFrames: Int
    /// Frames to deliver before reading upstream again: a fill, then the right context read to make it.
    private var queue: [Float] = []
    private var queueUsed = 0
    private var upstreamPosition: Int64 = 0
    private var nextGap = 0

    /// - Parameter gaps: sorted by `at`, each inside the upstream (0 < at ≤ its length), none longer than
    ///   `maximumGapSeconds`.
    public init(_ upstream: AudioSource, gaps: [Gap], sampleRate: Int) {
        precondition(zip(gaps, gaps.dropFirst()).allSatisfy { $0.at <= $1.at }, "gaps in order")
        precondition(gaps.allSatisfy { $0.at >= 0 && $0.at <= upstream.frameCount && $0.frames > 0 })
        precondition(gaps.allSatisfy { $0.frames <= Int64(GapFiller.maximumGapSeconds * sampleRate) })
        self.upstream = upstream
        self.gaps = gaps
        channelCount = upstream.channelCount
        frameCount = upstream.frameCount + gaps.reduce(0) { $0 + $1.frames }
        matchFrames = max(8, sampleRate / 100)
        searchFrames = max(8, sampleRate * 15 / 1000)
        crossfadeFrames = max(8, sampleRate / 100)
        historyFrames = Int(gaps.map(\.frames).max() ?? 0) + searchFrames + matchFrames
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        if queueUsed < queue.count {
            let count = min(frames, (queue.count - queueUsed) / channelCount)
            queue.withUnsafeBufferPointer {
                buffer.update(from: $0.baseAddress! + queueUsed, count: count * channelCount)
            }
            queueUsed += count * channelCount
            remember(buffer, frames: count)
            return count
        }
        if nextGap < gaps.count && gaps[nextGap].at == upstreamPosition {
            try prepareFill()
            return try read(into: buffer, frames: frames)
        }
        var wanted = frames
        if nextGap < gaps.count { wanted = Int(min(Int64(wanted), gaps[nextGap].at - upstreamPosition)) }
        let got = try upstream.read(into: buffer, frames: wanted)
        upstreamPosition += Int64(got)
        remember(buffer, frames: got)
        return got
    }

    /// Keeps the last `historyFrames` frames delivered.
    private func remember(_ samples: UnsafePointer<Float>, frames: Int) {
        guard historyFrames > 0, frames > 0 else { return }
        history.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * channelCount))
        let excess = history.count - historyFrames * channelCount
        if excess > historyFrames * channelCount { history.removeFirst(excess) }
    }

    /// Reads the right context of the gap at hand, makes the fill, and queues both.
    private func prepareFill() throws {
        let gap = gaps[nextGap]
        nextGap += 1
        let m = Int(gap.frames)
        // The right context: what the search needs, but never past the next gap.
        var aheadFrames = m + searchFrames + matchFrames
        if nextGap < gaps.count { aheadFrames = Int(min(Int64(aheadFrames), gaps[nextGap].at - upstreamPosition)) }
        var ahead = [Float](repeating: 0, count: aheadFrames * channelCount)
        var read = 0
        while read < aheadFrames {
            let got = try ahead.withUnsafeMutableBufferPointer {
                try upstream.read(into: $0.baseAddress! + read * channelCount, frames: aheadFrames - read)
            }
            if got == 0 { break }
            read += got
        }
        ahead.removeLast((aheadFrames - read) * channelCount)
        upstreamPosition += Int64(read)
        let left = Array(history.suffix(min(history.count, historyFrames * channelCount)))
        queue = fill(frames: m, left: left, right: ahead) + ahead
        queueUsed = 0
    }

    /// The fill for a gap of `m` frames between `left` (frames before it, oldest first) and `right` (frames after it).
    func fill(frames m: Int, left: [Float], right: [Float]) -> [Float] {
        let c = channelCount
        let leftMono = mono(left)
        let rightMono = mono(right)
        let leftCount = leftMono.count
        let rightCount = rightMono.count
        // The repeat before the gap: L[i] = left[end − k + i], with k ≥ m so it lies wholly before the gap.
        var leftShift: Int?
        if leftCount >= m {
            let x = min(matchFrames, leftCount - m)
            if x >= 4 {
                let target = Array(leftMono[(leftCount - x)...])
                leftShift = bestShift(in: m...min(m + searchFrames, leftCount - x)) { k in
                    normalisedCorrelation(target, leftMono[(leftCount - k - x)..<(leftCount - k)])
                }
            } else {
                leftShift = m
            }
        }
        // The repeat after the gap: R[i] = right[k − m + i], k ≥ m, chosen so right[k...] resembles right[0...].
        var rightShift: Int?
        if rightCount >= m {
            let x = min(matchFrames, rightCount - m)
            if x >= 4 {
                let target = Array(rightMono[0..<x])
                rightShift = bestShift(in: m...min(m + searchFrames, rightCount - x)) { k in
                    normalisedCorrelation(target, rightMono[k..<(k + x)])
                }
            } else {
                rightShift = m
            }
        }
        var out = [Float](repeating: 0, count: m * c)
        let fade = min(m, crossfadeFrames)
        let fadeStart = (m - fade) / 2
        for i in 0..<m {
            // Weight of the right-hand repeat: 0 before the crossfade, 1 after.
            let w: Float
            switch (leftShift, rightShift) {
            case (_?, _?):
                if i < fadeStart {
                    w = 0
                } else if i >= fadeStart + fade {
                    w = 1
                } else {
                    w = Float(0.5 - 0.5 * cos(Double.pi * (Double(i - fadeStart) + 0.5) / Double(fade)))
                }
            case (_?, nil): w = 0
            case (nil, _?): w = 1
            case (nil, nil): continue
            }
            for ch in 0..<c {
                var v: Float = 0
                if let k = leftShift, w < 1 { v += (1 - w) * left[(leftCount - k + i) * c + ch] }
                if let k = rightShift, w > 0 { v += w * right[(k - m + i) * c + ch] }
                out[i * c + ch] = v
            }
        }
        return out
    }

    private func mono(_ interleaved: [Float]) -> [Float] {
        let c = channelCount
        guard c > 1 else { return interleaved }
        return (0..<(interleaved.count / c)).map { f in
            var sum: Float = 0
            for ch in 0..<c { sum += interleaved[f * c + ch] }
            return sum
        }
    }

    /// The shift in `range` with the highest score (the first of equals).
    private func bestShift(in range: ClosedRange<Int>, score: (Int) -> Double) -> Int {
        var best = range.lowerBound
        var bestScore = -Double.infinity
        for k in range {
            let s = score(k)
            if s > bestScore {
                bestScore = s
                best = k
            }
        }
        return best
    }

    private func normalisedCorrelation(_ a: [Float], _ b: ArraySlice<Float>) -> Double {
        var ab = 0.0
        var aa = 0.0
        var bb = 0.0
        for (x, y) in zip(a, b) {
            ab += Double(x) * Double(y)
            aa += Double(x) * Double(x)
            bb += Double(y) * Double(y)
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }
}

/// `upstream` with `frames` frames of silence before it (a recording that started after its reference, moved to the
/// reference's start) or after it (a recording that stopped before its reference did).
public final class SilencePadding: AudioSource {
    public enum Side: Sendable {
        case leading, trailing
    }

    public let channelCount: Int
    public let frameCount: Int64
    private let upstream: AudioSource
    private let side: Side
    private var upstreamDone = false
    private var remaining: Int64

    public init(_ upstream: AudioSource, frames: Int64, side: Side) {
        precondition(frames >= 0)
        self.upstream = upstream
        self.side = side
        channelCount = upstream.channelCount
        frameCount = upstream.frameCount + frames
        remaining = frames
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        switch side {
        case .leading:
            if remaining > 0 { return silence(into: buffer, frames: frames) }
            return try upstream.read(into: buffer, frames: frames)
        case .trailing:
            if !upstreamDone {
                let got = try upstream.read(into: buffer, frames: frames)
                if got > 0 { return got }
                upstreamDone = true
            }
            return silence(into: buffer, frames: frames)
        }
    }

    private func silence(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let count = Int(min(Int64(frames), remaining))
        buffer.update(repeating: 0, count: count * channelCount)
        remaining -= Int64(count)
        return count
    }
}
