import DriftRepair

public import struct SystemPackage.FilePath

/// What a one-file repair wrote: lengths exact in frames, verified by reading the output back.
public struct RepairSummary: Sendable, Equatable {
    public var recording: FilePath
    public var output: FilePath
    /// Frames read from the recording, and of those the ones the repair used (a trim leaves some out).
    public var inputFrames: Int64
    public var outputFrames: Int64
    public var inputSampleRate: Int
    /// The output's rate (the input's unless converted).
    public var outputSampleRate: Int
    /// The method that ran, as the output's coding history names it (`resample (libsamplerate best)`, ...).
    public var method: String
    /// The repair's own time, reading to verified.
    public var elapsed: Duration
    /// What the output could not keep of the input's metadata, and other notes for QA.
    public var warnings: [String]

    /// The output's length: `outputFrames` at `outputSampleRate`, exact.
    public var outputDuration: Rational { Rational(outputFrames, Int64(max(outputSampleRate, 1))) }

    init(_ result: ProcessResult, recording: FilePath, output: FilePath) {
        self.recording = recording
        self.output = output
        inputFrames = result.inputFrames
        outputFrames = result.outputFrames
        inputSampleRate = result.inputFormat.sampleRate
        outputSampleRate = result.outputFormat.sampleRate
        method = result.method
        elapsed = result.elapsed
        warnings = result.formatNotes + result.warnings
    }
}
