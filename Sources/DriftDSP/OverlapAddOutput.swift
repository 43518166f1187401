/// The output side of an overlap-add stretcher (the WSOLA `TimeStretcher`, the `PhaseVocoder`): output frames
/// [start, start + length) being summed from windows, of which the first `hop` become final once the next window
/// starts after them. Hands out the final frames in order, exactly `frameCount` in all, skipping the frames before 0
/// (the first window's leading half, over the zero-extended input).
final class OverlapAddOutput {
    /// Frames [start, start + length), interleaved: windows are added here.
    let samples: UnsafeMutablePointer<Float>
    private(set) var start: Int64
    private let length: Int
    private let channelCount: Int
    private let frameCount: Int64
    /// Final frames at the front, and how many of them were handed out.
    private var ready = 0
    private var readyOffset = 0
    private var produced: Int64 = 0

    init(length: Int, channelCount: Int, frameCount: Int64, start: Int64) {
        self.length = length
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.start = start
        samples = .allocate(capacity: length * channelCount)
        samples.initialize(repeating: 0, count: length * channelCount)
    }

    deinit {
        samples.deallocate()
    }

    /// Copies up to `frames` final frames into `buffer`, calling `synthesise` whenever the final ones run out (it
    /// retires them, adds the next window and marks what became final); fewer only at the end.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int, synthesise: () throws -> Void) rethrows -> Int {
        var written = 0
        while written < frames && produced < frameCount {
            if readyOffset == ready {
                try synthesise()
                continue
            }
            let count = min(frames - written, ready - readyOffset, Int(frameCount - produced))
            (buffer + written * channelCount).update(
                from: samples + readyOffset * channelCount, count: count * channelCount)
            readyOffset += count
            written += count
            produced += Int64(count)
        }
        return written
    }

    /// Drops the final frames handed out: the rest moves to the front, zeros behind it.
    func retire() {
        guard ready > 0 else { return }
        let keep = length - ready
        samples.update(from: samples + ready * channelCount, count: keep * channelCount)
        (samples + keep * channelCount).update(repeating: 0, count: ready * channelCount)
        start += Int64(ready)
        ready = 0
        readyOffset = 0
    }

    /// The first `count` frames are final: nothing added later reaches them. Output before 0 is never delivered.
    func finalise(_ count: Int) {
        ready = count
        if start < 0 { readyOffset = min(ready, Int(-start)) }
    }
}
