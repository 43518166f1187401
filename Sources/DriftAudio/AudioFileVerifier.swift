/// What reopening a written file found, compared with what it should be.
public struct Verification: Equatable, Sendable {
    public let path: String
    public let expectedFrames: Int64
    public let foundFrames: Int64
    public let expectedFormat: AudioFormat?
    public let foundFormat: AudioFormat

    /// Found minus expected.
    public var frameDifference: Int64 { foundFrames - expectedFrames }

    /// Each way the file differs from what was expected; empty when it verifies.
    public var mismatches: [String] {
        var problems: [String] = []
        if foundFrames != expectedFrames {
            problems.append("\(foundFrames) frames, expected \(expectedFrames) (difference \(frameDifference))")
        }
        if let expected = expectedFormat {
            if expected.sampleRate != foundFormat.sampleRate {
                problems.append("sample rate \(foundFormat.sampleRate) Hz, expected \(expected.sampleRate) Hz")
            }
            if expected.channelCount != foundFormat.channelCount {
                problems.append("\(foundFormat.channelCount) channels, expected \(expected.channelCount)")
            }
            if expected.container != foundFormat.container || expected.encoding != foundFormat.encoding {
                problems.append("format \(foundFormat), expected \(expected)")
            }
        }
        return problems
    }

    public var passed: Bool { mismatches.isEmpty }
}

/// Checks a written file by reopening it: the exact frame count, and optionally the rate, channels and format.
public enum AudioFileVerifier {
    /// Reopens `path` and compares it with the expectation.
    ///
    /// - Throws: `AudioError` when the file cannot be opened as audio at all.
    public static func verify(
        path: String, expectedFrames: Int64, expectedFormat: AudioFormat? = nil
    ) throws(AudioError) -> Verification {
        let reader = try AudioFileReader(path: path)
        return Verification(
            path: path, expectedFrames: expectedFrames, foundFrames: reader.frameCount,
            expectedFormat: expectedFormat, foundFormat: reader.format)
    }
}
