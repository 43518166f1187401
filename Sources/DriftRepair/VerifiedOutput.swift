import DriftAV
import DriftAudio
import DriftCore
import DriftSupport
import Tracing

/// A written output's check: what it found, and how it differs from what was planned (nothing when it passed).
protocol OutputCheck {
    var foundFrames: Int64 { get }
    var mismatches: [String] { get }
}

extension Verification: OutputCheck {}
extension MediaVerifier.Outcome: OutputCheck {}

/// A writer that finishes its file on `close()`: libsndfile's, or a media container's through FFmpeg.
protocol ClosingSink: AudioSink {
    func close() throws
}

extension AudioFileWriter: ClosingSink {}
extension MediaRewriter: ClosingSink {}

/// The one way a repair's output reaches its name, whatever writes it: staged beside the destination, filled from the
/// chain, closed, checked by reopening it (a decode for compressed media), the request's last check, then renamed.
/// Nothing appears under the output's name unless its check passed.
enum VerifiedOutput {
    /// Stages the output, then builds the chain with `source` (so a destination that cannot be written is refused
    /// before any reading or converting starts), writes it through the writer `open` makes on the staged file (and
    /// `beforeClose` once the audio is in), checks it with `check` (given the writer and the temporary file's path),
    /// and commits it.
    ///
    /// - Throws: the chain's, the writer's or the check's error; `ProcessError.unverified` naming the output and each
    ///   mismatch.
    static func write<Writer: ClosingSink, Check: OutputCheck>(
        for request: ProcessRequest, progress: ((Int64, Int64) throws -> Void)? = nil,
        source makeSource: () throws -> AudioSource,
        open: (StagedOutput) throws -> Writer, beforeClose: ((Writer) throws -> Void)? = nil,
        check: (Writer, String) throws -> Check
    ) throws -> (writer: Writer, check: Check) {
        // The steps are spans of their own (read, convert and write stream together, so they are one).
        let (staged, source, writer) = try withSpan("prepare") { _ in
            let staged = try StagedOutput(
                destination: request.outputText, protecting: request.inputText, replacing: request.replacing)
            let source = try makeSource()
            return (staged, source, try open(staged))
        }
        try withSpan("convert") { span in
            span.attributes["driftfix.output.frames"] = source.frameCount
            try FileProcessor.pump(source, into: writer, blockFrames: request.blockFrames, progress: progress)
            try beforeClose?(writer)
            try writer.close()
        }
        let found = try withSpan("verify") { _ in try check(writer, staged.temporaryPath) }
        guard found.mismatches.isEmpty else { throw ProcessError.unverified(request.outputText, found.mismatches) }
        try withSpan("commit") { _ in
            // Crash and stall injection between a verified temporary file and its rename (the sweep tests).
            Failpoint.hit("commit")
            try request.beforeCommit?(staged.temporaryPath)
            try staged.commit()
        }
        return (writer, found)
    }
}
