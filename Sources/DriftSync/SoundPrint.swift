import Foundation

/// A file's sound summarised so that other files can find it: its onsets, 100 a second, one byte each.
///
/// Onsets (how much louder each 10 ms got than the one before) are what a close and a distant microphone agree on
/// whatever their colour, gain and noise (the content measurement's first pass rests on them), and they are small:
/// 100 bytes per second of sound, 360 KB for an hour, so a night's prints are cached and compared without the audio.
public struct SoundPrint: Sendable, Equatable {
    /// Onset frames per second.
    public static let frameRate = 100
    /// One onset step of the log energy is stored as this many units (a byte holds up to about 6.4 nats).
    static let scale: Float = 40

    /// The onsets, frame k covering [k, k + 1) / `frameRate` seconds of the file.
    public var onsets: [UInt8]
    /// The file's length, seconds.
    public var seconds: Double

    public init(onsets: [UInt8], seconds: Double) {
        self.onsets = onsets
        self.seconds = seconds
    }

    /// Reads `input` once (reduced to about 8 kHz mono, as the content measurement does) and summarises it.
    ///
    /// - Throws: what reading the file throws, naming it.
    public static func make(_ input: MeasuredInput) throws -> SoundPrint {
        let stream = AnalysisStream(try input.open(), sampleRate: input.sampleRate)
        let (values, samples, _) = try OnsetPass.scan(stream, spill: nil)
        let onsets = values.map { UInt8(min(255, max(0, ($0 * scale).rounded()))) }
        return SoundPrint(onsets: onsets, seconds: Double(samples) / stream.rate)
    }

    /// The stored form: "DFSP", a version byte, the length in microseconds (8 bytes, little-endian), the onsets.
    public var bytes: Data {
        var data = Data("DFSP".utf8)
        data.append(1)
        withUnsafeBytes(of: UInt64((seconds * 1e6).rounded()).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: onsets)
        return data
    }

    /// Reads the stored form; nil for anything else (another version is simply made again).
    public init?(bytes data: Data) {
        let header = 4 + 1 + 8
        guard data.count >= header, data.prefix(4) == Data("DFSP".utf8), data[data.startIndex + 4] == 1 else {
            return nil
        }
        var micros: UInt64 = 0
        for i in 0..<8 { micros |= UInt64(data[data.startIndex + 5 + i]) << (8 * UInt64(i)) }
        seconds = Double(micros) / 1e6
        onsets = [UInt8](data.dropFirst(header))
    }

    /// Onsets summed over `factor` frames, as floats (a coarser print for the search).
    func pooled(by factor: Int) -> [Float] {
        let count = (onsets.count + factor - 1) / factor
        var out = [Float](repeating: 0, count: count)
        for (i, value) in onsets.enumerated() { out[i / factor] += Float(value) }
        return out
    }
}
