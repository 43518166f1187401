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
        if AudioInput.library(for: path) == .libsndfile {
            guard let reader = try? AudioFileReader(path: path) else { return nil }
            if let bext = reader.metadata().broadcastInfo, bext.timeReference > 0 {
                return Double(bext.timeReference) / Double(reader.format.sampleRate)
            }
            return reader.chunk("iXML").flatMap { ixml(IXMLText.decode($0), fileRate: reader.format.sampleRate) }
        }
        guard let info = try? MediaProbe.probe(path) else { return nil }
        // Tag names as each container spells them (Matroska's are upper case: TIMECODE).
        func tag(_ tags: [String: String], _ name: String) -> String? {
            tags[name] ?? tags.first { $0.key.lowercased() == name }?.value
        }
        if let text = tag(info.tags, "time_reference"), let samples = UInt64(text), samples > 0,
            let rate = info.audioStreams.first?.sampleRate
        {
            return Double(samples) / Double(rate)
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
    static func ixml(_ xml: String, fileRate: Int) -> Double? {
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
            let rate = IXMLText.element(["SPEED", "TIMESTAMP_SAMPLE_RATE"], in: xml).flatMap { Int($0) } ?? fileRate
            guard rate > 0 else { return nil }
            return Double(samples) / Double(rate)
        }
        if let samples = count("BEXT", "BWF_TIME_REFERENCE_LOW", "BWF_TIME_REFERENCE_HIGH"), samples > 0, fileRate > 0 {
            return Double(samples) / Double(fileRate)
        }
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
