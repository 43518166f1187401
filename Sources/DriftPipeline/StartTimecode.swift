import DriftAV
import DriftAudio
import DriftCore
import Foundation

/// When a file's first frame was recorded, by the clock its device wrote down: a BWF `bext` TimeReference (samples
/// since midnight), a QuickTime `tmcd` or MXF start timecode (`HH:MM:SS:FF`, `;` before the frames for drop-frame),
/// as FFmpeg reports it. A second witness beside the sound; nil where the file carries none.
public enum StartTimecode {
    /// Seconds since midnight of `path`'s first frame, or nil.
    public static func seconds(of path: String) -> Double? {
        if !MediaRoute.decodesWithFFmpeg(path) {
            guard let reader = try? AudioFileReader(path: path), let bext = reader.metadata().broadcastInfo,
                  bext.timeReference > 0 else { return nil }
            return Double(bext.timeReference) / Double(reader.format.sampleRate)
        }
        guard let info = try? MediaProbe.probe(path) else { return nil }
        if let text = info.tags["time_reference"], let samples = UInt64(text), samples > 0,
           let rate = info.audioStreams.first?.sampleRate {
            return Double(samples) / Double(rate)
        }
        let rate = info.videoStreams.first?.frameRate
        for stream in info.streams {
            if let text = stream.tags["timecode"], let seconds = parse(text, frameRate: stream.frameRate ?? rate) { return seconds }
        }
        if let text = info.tags["timecode"], let seconds = parse(text, frameRate: rate) { return seconds }
        return nil
    }

    /// `HH:MM:SS:FF` (or `;`/`.` before the frames: drop-frame) at `frameRate`, in seconds of real time.
    static func parse(_ text: String, frameRate: Rational?) -> Double? {
        let dropFrame = text.contains(";") || text.contains(".")
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." }).compactMap { Int($0) }
        guard parts.count == 4, let frameRate, frameRate.numerator > 0, frameRate.denominator > 0 else { return nil }
        let (h, m, s, f) = (parts[0], parts[1], parts[2], parts[3])
        let rate = Double(frameRate.numerator) / Double(frameRate.denominator)
        let nominal = Int(rate.rounded())
        guard h < 24, m < 60, s < 60, f < max(nominal, 1) else { return nil }
        var frames = ((h * 60 + m) * 60 + s) * nominal + f
        if dropFrame && nominal % 30 == 0 {
            // Two (four at 60) frame numbers skipped each minute but every tenth.
            let skip = nominal / 15
            let minutes = h * 60 + m
            frames -= skip * (minutes - minutes / 10)
        }
        return Double(frames) / rate
    }
}
