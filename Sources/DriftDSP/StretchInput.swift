import DriftCore

/// The input a time-stretcher reads from: frames [start, end) of its upstream, zero-extended on both sides, interleaved
/// in a window of fixed capacity, read on demand in blocks of at most 8,192 frames. An upstream that ends short of its
/// stated length is an error, never padded over. With `keepsMix`, each frame's channel sum is kept beside it (WSOLA
/// searches on it, so that every channel is spliced at the same frame).
final class StretchInput {
    let channelCount: Int
    let capacity: Int
    /// The window's samples: frame `start + i` at `samples + i × channelCount`.
    let samples: UnsafeMutablePointer<Float>
    /// Frame `start + i`'s channel sum at `mix + i` (allocated and kept only with `keepsMix`).
    let mix: UnsafeMutablePointer<Float>
    private(set) var start: Int64
    private(set) var count = 0
    private let keepsMix: Bool
    private let upstream: AudioSource
    private let frames: Int64
    private var delivered: Int64 = 0
    private var ended = false

    /// A window of `capacity` frames over `upstream`, starting with `leadingZeros` frames of silence before frame 0.
    init(upstream: AudioSource, capacity: Int, leadingZeros: Int, keepsMix: Bool = false) {
        self.upstream = upstream
        channelCount = upstream.channelCount
        frames = upstream.frameCount
        self.capacity = capacity
        self.keepsMix = keepsMix
        samples = .allocate(capacity: capacity * channelCount)
        mix = .allocate(capacity: keepsMix ? capacity : 1)
        start = -Int64(leadingZeros)
        appendZeros(leadingZeros)
    }

    deinit {
        samples.deallocate()
        mix.deallocate()
    }

    /// One past the last frame in the window.
    var end: Int64 { start + Int64(count) }

    /// Frames the window can still take without dropping any.
    var room: Int { capacity - count }

    /// Drops the frames before `frame`, moving the rest to the front of the window.
    func drop(before frame: Int64) {
        let dropped = Int(frame - start)
        guard dropped > 0 else { return }
        let kept = count - dropped
        samples.update(from: samples + dropped * channelCount, count: kept * channelCount)
        if keepsMix { mix.update(from: mix + dropped, count: kept) }
        start += Int64(dropped)
        count = kept
    }

    /// Reads until the window holds every frame before `end`, zeros past the upstream's end. `whenFull` runs when the
    /// window has no room left: the reader drops what it no longer needs there.
    func fill(through end: Int64, whenFull: () -> Void = {}) throws {
        while self.end < end {
            if count == capacity { whenFull() }
            let room = capacity - count
            precondition(room > 0, "input window too small")
            if ended {
                appendZeros(min(room, Int(end - self.end)))
                continue
            }
            let wanted = Int(min(Int64(min(room, 8192)), frames - delivered))
            let got = wanted > 0 ? try upstream.read(into: samples + count * channelCount, frames: wanted) : 0
            if got == 0 {
                guard delivered == frames else { throw DSPError.lengthMismatch(target: frames, produced: delivered) }
                ended = true
                continue
            }
            if keepsMix { sumChannels(from: count, count: got) }
            count += got
            delivered += Int64(got)
        }
    }

    private func appendZeros(_ zeros: Int) {
        precondition(count + zeros <= capacity, "input window too small")
        (samples + count * channelCount).update(repeating: 0, count: zeros * channelCount)
        if keepsMix { (mix + count).update(repeating: 0, count: zeros) }
        count += zeros
    }

    private func sumChannels(from first: Int, count: Int) {
        let channels = channelCount
        for i in first..<(first + count) {
            var sum: Float = 0
            for c in 0..<channels { sum += samples[i * channels + c] }
            mix[i] = sum
        }
    }
}
