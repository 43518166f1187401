import DriftAV
import DriftAudio
import DriftCore
import Foundation

/// When a file's first frame was recorded, by the clock its device wrote down: a BWF `bext` TimeReference (samples
/// since midnight), iXML's timestamp (SPEED, or its copy of BEXT), a QuickTime `tmcd`, MXF or Matroska start timecode (`HH:MM:SS:FF`, `;` before the frames for drop-frame),
/// as FFmpeg reports it. A second witness beside the sound; nil where the file carries none.
public enum StartTimecode {
    /// Seconds since midnight of `path`'s first frame, or nil.
    public static func seconds(of path: String) -> Double? {
        exact(of: path)?.doubleValue
    }

    /// Seconds since midnight of `path`'s first frame, exactly (samples over the rate, frames over the frame rate),
    /// or nil.
    public static func exact(of path: String) -> Rational? {
        if AudioInput.library(for: path) == .libsndfile {
            guard let reader = try? AudioFileReader(path: path) else { return nil }
            if let bext = reader.descriptiveMetadata().broadcastInfo, bext.timeReference > 0,
                let samples = Int64(exactly: bext.timeReference)
            {
                return Rational(samples, Int64(reader.format.sampleRate))
            }
            return reader.chunk("iXML").flatMap { ixml(IXMLText.decode($0), fileRate: reader.format.sampleRate) }
        }
        guard let info = try? MediaProbe.probe(path) else { return nil }
        // Tag names as each container spells them (Matroska's are upper case: TIMECODE).
        func tag(_ tags: [String: String], _ name: String) -> String? {
            tags[name] ?? tags.first { $0.key.lowercased() == name }?.value
        }
        if let text = tag(info.tags, "time_reference"), let samples = Int64(text), samples > 0,
            let rate = info.audioStreams.first?.sampleRate
        {
            return Rational(samples, Int64(rate))
        }
        let rate = info.videoStreams.first?.frameRate
        for stream in info.streams {
            if let text = tag(stream.tags, "timecode"), let seconds = parse(text, frameRate: stream.frameRate ?? rate) {
                return seconds
            }
        }
        if let text = tag(info.tags, "timecode"), let seconds = parse(text, frameRate: rate) { return seconds }
        return nil
    }

    /// The start in an iXML chunk (recorders that write no bext, or a zero TimeReference beside it): SPEED's
    /// TIMESTAMP_SAMPLES_SINCE_MIDNIGHT at its TIMESTAMP_SAMPLE_RATE, else BEXT's BWF_TIME_REFERENCE at the file's
    /// rate; each a 64-bit count in two 32-bit halves.
    static func ixml(_ xml: String, fileRate: Int) -> Rational? {
        func count(_ parent: String, _ low: String, _ high: String) -> UInt64? {
            guard let lo = IXMLText.element([parent, low], in: xml).flatMap({ UInt64($0) }), lo <= UInt64(UInt32.max)
            else { return nil }
            let hi = IXMLText.element([parent, high], in: xml).flatMap { UInt64($0) } ?? 0
            guard hi <= UInt64(UInt32.max) else { return nil }
            return hi << 32 | lo
        }
        if let samples = count("SPEED", "TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO", "TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI"),
            samples > 0
        {
            let rate =
                IXMLText.element(["SPEED", "TIMESTAMP_SAMPLE_RATE"], in: xml).flatMap { Int64($0) }
                ?? Int64(fileRate)
            guard rate > 0, let samples = Int64(exactly: samples) else { return nil }
            return Rational(samples, rate)
        }
        if let samples = count("BEXT", "BWF_TIME_REFERENCE_LOW", "BWF_TIME_REFERENCE_HIGH"), samples > 0, fileRate > 0,
            let samples = Int64(exactly: samples)
        {
            return Rational(samples, Int64(fileRate))
        }
        return nil
    }

    /// `HH:MM:SS:FF` (or `;`/`.` before the frames: drop-frame) at `frameRate`, in seconds of real time.
    static func parse(_ text: String, frameRate: Rational?) -> Rational? {
        let dropFrame = text.contains(";") || text.contains(".")
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." }).compactMap { Int($0) }
        guard parts.count == 4, let frameRate, frameRate.numerator > 0, frameRate.denominator > 0 else { return nil }
        let (h, m, s, f) = (parts[0], parts[1], parts[2], parts[3])
        let nominal = Int((Double(frameRate.numerator) / Double(frameRate.denominator)).rounded())
        guard h < 24, m < 60, s < 60, f < max(nominal, 1) else { return nil }
        var frames = ((h * 60 + m) * 60 + s) * nominal + f
        if dropFrame && nominal % 30 == 0 {
            // Two (four at 60) frame numbers skipped each minute but every tenth.
            let skip = nominal / 15
            let minutes = h * 60 + m
            frames -= skip * (minutes - minutes / 10)
        }
        // frames / (numerator / denominator) seconds.
        return Rational(Int64(frames) * frameRate.denominator, frameRate.numerator)
    }
}
