import Foundation

/// A file's sound summarised so that other files can find it: its onsets, 100 a second, one byte each, and its
/// harmony, 10 times a second, twelve pitch classes in four bits each (`ChromaEnvelope`).
///
/// Onsets (how much louder each 10 ms got than the one before) are what a close and a distant microphone agree on
/// whatever their colour, gain and noise (the content measurement's first pass rests on them); the pitch classes are
/// what finds music, whose beat repeats every bar. Both are small: 160 bytes per second of sound, 576 KB for an hour,
/// so a night's prints are cached and compared without the audio.
public struct SoundPrint: Sendable, Equatable {
    /// Onset frames per second.
    public static let frameRate = 100
    /// One onset step of the log energy is stored as this many units (a byte holds up to about 6.4 nats).
    static let scale: Float = 40

    /// The onsets, frame k covering [k, k + 1) / `frameRate` seconds of the file.
    public var onsets: [UInt8]
    /// The file's length, seconds.
    public var seconds: Double
    /// The pitch classes, frame k covering about [k, k + 1) / 10 s: 6 bytes a frame, each two classes' steps below the
    /// frame's loudest (high nibble first, C to B); 15 for a silent frame. Empty: unknown.
    public var chroma: [UInt8]

    public init(onsets: [UInt8], seconds: Double, chroma: [UInt8] = []) {
        self.onsets = onsets
        self.seconds = seconds
        self.chroma = chroma
    }

    /// The stored form's version; a print of another version is made again.
    static let version: UInt8 = 2

    /// Reads `input` once (reduced to about 8 kHz mono, as the content measurement does) and summarises it.
    ///
    /// - Throws: what reading the file throws, naming it.
    public static func make(_ input: MeasuredInput) throws -> SoundPrint {
        let stream = AnalysisStream(try input.open(), sampleRate: input.sampleRate)
        var envelope = OnsetEnvelope(analysisRate: stream.rate)
        var harmony = ChromaEnvelope(analysisRate: stream.rate)
        let capacity = 65536
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var samples = 0
        while true {
            let got = try stream.read(into: buffer, count: capacity)
            if got == 0 { break }
            envelope.append(buffer, count: got)
            harmony.append(buffer, count: got)
            samples += got
        }
        envelope.finish()
        harmony.finish()
        let onsets = envelope.values.map { UInt8(min(255, max(0, ($0 * scale).rounded()))) }
        return SoundPrint(onsets: onsets, seconds: Double(samples) / stream.rate, chroma: harmony.packed)
    }

    /// The stored form: "DFSP", a version byte, the length in microseconds (8 bytes, little-endian), the number of
    /// onsets (4 bytes, little-endian), the onsets, the pitch classes.
    public var bytes: Data {
        var data = Data("DFSP".utf8)
        data.append(Self.version)
        withUnsafeBytes(of: UInt64((seconds * 1e6).rounded()).littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(onsets.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(contentsOf: onsets)
        data.append(contentsOf: chroma)
        return data
    }

    /// Reads the stored form; nil for anything else (another version is simply made again).
    public init?(bytes data: Data) {
        let header = 4 + 1 + 8 + 4
        guard data.count >= header, data.prefix(4) == Data("DFSP".utf8), data[data.startIndex + 4] == Self.version
        else { return nil }
        func integer(at offset: Int, bytes: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in 0..<bytes { value |= UInt64(data[data.startIndex + offset + i]) << (8 * UInt64(i)) }
            return value
        }
        let count = Int(integer(at: 13, bytes: 4))
        let rest = data.count - header - count
        guard count <= data.count - header, rest % 6 == 0 else { return nil }
        seconds = Double(integer(at: 5, bytes: 8)) / 1e6
        onsets = [UInt8](data[(data.startIndex + header)..<(data.startIndex + header + count)])
        chroma = [UInt8](data[(data.startIndex + header + count)...])
    }

    /// The pitch classes as levels in dB below each frame's loudest (0 … −45), frame by frame, 12 a frame.
    func chromaLevels() -> [[Float]] {
        stride(from: 0, to: chroma.count - chroma.count % 6, by: 6).map { start in
            (0..<ChromaEnvelope.classes).map { c in
                let byte = chroma[start + c / 2]
                return -Float(c % 2 == 0 ? byte >> 4 : byte & 0x0F) * ChromaEnvelope.stepDB
            }
        }
    }

    /// Onsets summed over `factor` frames, as floats (a coarser print for the search).
    func pooled(by factor: Int) -> [Float] {
        let count = (onsets.count + factor - 1) / factor
        var out = [Float](repeating: 0, count: count)
        for (i, value) in onsets.enumerated() { out[i / factor] += Float(value) }
        return out
    }
}
