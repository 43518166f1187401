import DriftAudio
import DriftCore
import Foundation

public import struct SystemPackage.FilePath

/// A fresh temporary folder, removed when the value is released.
public final class TemporaryFolder: Sendable {  // immutable after init
    public let path: String

    public init(_ name: String = "driftfix-test") {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    /// The folder as the library's API takes a path.
    public var filePath: FilePath { FilePath(path) }

    /// `name` in the folder, as the library's API takes a path.
    public func filePath(_ name: String) -> FilePath { FilePath(file(name)) }

    /// Names of the entries in the folder (hidden ones included), sorted.
    public func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// Writes `signal` as a recording file in `format` through the project's writer.
@discardableResult
public func writeRecording(
    _ signal: TestSignal, to path: String, format: AudioFormat, metadata: AudioMetadata = AudioMetadata()
) throws -> String {
    let writer = try AudioFileWriter(path: path, format: format, metadata: metadata)
    let block = 16_384
    var start: Int64 = 0
    while start < signal.length {
        let count = Int(min(Int64(block), signal.length - start))
        let samples = signal.recording(start: start, count: count)
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: count) }
        start += Int64(count)
    }
    try writer.close()
    return path
}

/// Writes `signal` as a 24-bit WAV at `sampleRate`, for tests that speak to the library alone (no audio module).
@discardableResult
public func writeWAV(_ signal: TestSignal, to path: String, sampleRate: Int) throws -> String {
    try writeRecording(
        signal, to: path,
        format: AudioFormat(
            container: .wav, encoding: .pcm24, sampleRate: sampleRate, channelCount: signal.channelCount))
}

/// A mono 16-bit 48 kHz WAV of a test signal `frames` long: the plain input of a test about files, not sound.
@discardableResult
public func writeMonoWAV(frames: Int64, to path: String) throws -> String {
    try writeRecording(
        TestSignal(channelCount: 1, length: frames), to: path,
        format: AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1))
}

/// Reads a whole (test-sized) audio file: its samples, rate, channels and frames, in plain types.
public func readSound(_ path: String) throws -> (samples: [Float], sampleRate: Int, channels: Int, frames: Int64) {
    let (samples, format, frames) = try readAll(path)
    return (samples, format.sampleRate, format.channelCount, frames)
}

/// Reads a whole (test-sized) audio file.
public func readAll(_ path: String) throws -> (samples: [Float], format: AudioFormat, frames: Int64) {
    let reader = try AudioFileReader(path: path)
    return (try drain(reader), reader.format, reader.frameCount)
}

/// SHA-like fingerprint of a file's bytes (FNV-1a 64), to prove an input was not modified.
public func fingerprint(_ path: String) -> UInt64? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
}

/// A file's XXH3-64 as xxHash's own command prints it (`xxhsum -H3`), in driftfix's `xxh3:` form: an independent
/// check of the checksums driftfix reports. Nil if xxhsum fails.
public func xxhsum(_ path: String) -> String? {
    guard let result = try? Child("/usr/bin/xxhsum", ["-H3", path]).wait(seconds: 60), result.status == 0,
        let hex = result.stdout.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines),
        hex.count == 16
    else { return nil }
    return "xxh3:" + hex
}
