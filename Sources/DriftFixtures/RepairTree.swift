import DriftAudio
import DriftCore
import DriftSchema
import Foundation

/// A generated tree of recordings with sidecar references, and what each should become.
public struct RepairTree {
    public struct Entry: Sendable {
        public let recording: String
        public let frames: Int64
        /// The reference length; nil for a broken recording.
        public let target: Int64
        public let signal: TestSignal
        public let expected: RepairOutcome
    }

    public let root: TemporaryFolder
    public var entries: [Entry] = []

    /// `drifted` pairs at assorted clock drifts, `inSync` within tolerance, `refused` 20% short (unexplained).
    /// `tones` per channel: fewer make big trees quicker to generate and to check.
    public init(
        drifted: Int, inSync: Int = 0, refused: Int = 0, frames: Int64 = 12_000, channels: Int = 1, folders: Int = 3,
        tones: Int = 12
    ) throws {
        root = TemporaryFolder("driftfix-tree")
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: channels)
        let ppms: [Int64] = [-300, -131, -50, 80, 131, 250, -999, 1001]
        func add(_ index: Int, target: Int64, expected: RepairOutcome) throws {
            let folder = root.file("device\(index % folders)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let name = "take\(index)"
            let signal = TestSignal(
                channelCount: channels, length: frames, seed: UInt64(index + 1), tonesPerChannel: tones,
                maxCyclesPerSample: 0.2)
            try writeRecording(signal, to: folder + "/\(name).wav", format: format)
            try "\(target)@48000\n".write(toFile: folder + "/\(name).duration", atomically: true, encoding: .utf8)
            entries.append(
                Entry(
                    recording: folder + "/\(name).wav", frames: frames, target: target, signal: signal,
                    expected: expected))
        }
        var index = 0
        for i in 0..<drifted {
            let ppm = ppms[i % ppms.count] + Int64(i / ppms.count) * 7
            try add(
                index, target: frames + max(1, abs(frames * ppm / 1_000_000) + 49) * (ppm < 0 ? 1 : -1),
                expected: .repaired)
            index += 1
        }
        for _ in 0..<inSync {
            try add(index, target: frames + 10, expected: .skipped)  // 0.2 ms: within the 1 ms tolerance
            index += 1
        }
        for _ in 0..<refused {
            try add(index, target: frames * 5 / 4, expected: .refused)  // 20% short, no known cause
            index += 1
        }
    }

    /// Output path of an entry under `out`.
    public func output(_ entry: Entry, in out: String) -> String {
        out + entry.recording.dropFirst(root.path.count)
    }

    /// Fingerprints of every original.
    public func fingerprints() -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.recording, fingerprint($0.recording) ?? 0) })
    }
}
