internal import CFFmpeg
import DriftAudio
import DriftCore
import DriftSupport

/// Checks a rewritten media file by reading it back: the repaired audio stream decodes to exactly the expected number
/// of frames (decoded and counted, never a header's duration), and every copied stream holds the same packets as the
/// input's (count and a checksum of their bytes, in order).
public enum MediaVerifier {
    public struct Outcome: Sendable {
        public var foundFrames: Int64
        public var mismatches: [String]
        /// Packets of the copied streams, found identical.
        public var copiedPackets = 0
    }

    /// One repaired stream's expected length and rate, by its index in the output.
    public struct Expected: Sendable {
        public var stream: Int
        public var frames: Int64
        public var sampleRate: Int

        public init(stream: Int, frames: Int64, sampleRate: Int) {
            self.stream = stream
            self.frames = frames
            self.sampleRate = sampleRate
        }
    }

    /// Checks one repaired stream.
    public static func verify(
        output: String, displayPath: String, audioStream: Int, expectedFrames: Int64,
        expectedRate: Int, input: String, copied: [Int: Int]
    ) throws(AudioError) -> Outcome {
        try verify(
            output: output, displayPath: displayPath,
            expected: [Expected(stream: audioStream, frames: expectedFrames, sampleRate: expectedRate)],
            input: input, copied: copied)
    }

    /// - Parameters:
    ///   - expected: the repaired streams; `foundFrames` is the first one's count.
    ///   - copied: input stream index → output stream index of the streams that were copied.
    public static func verify(
        output: String, displayPath: String, expected: [Expected], input: String,
        copied: [Int: Int]
    ) throws(AudioError) -> Outcome {
        var mismatches: [String] = []
        var copiedPackets = 0
        var firstFound: Int64 = 0
        for (position, want) in expected.enumerated() {
            let reader: EncodedAudioReader
            do {
                reader = try EncodedAudioReader(path: output, stream: want.stream)
            } catch {
                throw AudioError(path: displayPath, cause: error.cause)
            }
            if position == 0 { firstFound = reader.frameCount }
            let which = expected.count > 1 ? "stream \(want.stream) " : ""
            if reader.frameCount != want.frames {
                mismatches.append("\(which)decodes to \(reader.frameCount) frames, expected \(want.frames)")
            }
            if reader.sampleRate != want.sampleRate {
                mismatches.append("\(which)sample rate \(reader.sampleRate) Hz, expected \(want.sampleRate) Hz")
            }
        }
        if !copied.isEmpty {
            let before = try fingerprints(of: input, streams: Set(copied.keys))
            let after = try fingerprints(of: output, streams: Set(copied.values))
            copiedPackets = after.values.reduce(0) { $0 + $1.packets }
            for (from, to) in copied.sorted(by: { $0.key < $1.key }) where before[from] != after[to] {
                let (a, b) = (before[from] ?? .init(), after[to] ?? .init())
                mismatches.append(
                    "stream \(to) differs from the input's stream \(from): \(b.packets) packets, expected \(a.packets)"
                        + (a.packets == b.packets ? " (same count, other bytes)" : ""))
            }
        }
        return Outcome(foundFrames: firstFound, mismatches: mismatches, copiedPackets: copiedPackets)
    }

    /// Packets and a checksum of their bytes (XXH3, chained across packets in order), per stream.
    public struct Fingerprint: Equatable, Sendable {
        public var packets = 0
        public var checksum = XXH3.Chain()
    }

    /// The packet fingerprints of `streams` of `path`.
    public static func fingerprints(of path: String, streams: Set<Int>) throws(AudioError) -> [Int: Fingerprint] {
        let demuxer = try Demuxer(path: path)
        demuxer.discardAll(except: streams)
        let packet = Packet()
        var result: [Int: Fingerprint] = [:]
        while try demuxer.read(into: packet.pointer) {
            defer { packet.unref() }
            let index = Int(packet.pointer.pointee.stream_index)
            guard streams.contains(index) else { continue }
            var print = result[index] ?? Fingerprint()
            print.packets += 1
            if let data = packet.pointer.pointee.data {
                print.checksum.update(UnsafeRawBufferPointer(start: data, count: Int(packet.pointer.pointee.size)))
            }
            result[index] = print
        }
        return result
    }
}
