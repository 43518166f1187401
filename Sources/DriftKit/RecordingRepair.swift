import DriftAudio
import DriftRepair
import DriftSupport
import Synchronization

public import struct SystemPackage.FilePath

/// One recording repaired to an exact length: the library's one-file repair, as `driftfix process` makes it.
///
/// The output is written to a hidden temporary file beside `output`, reopened to check its exact frame count and
/// format (compressed audio decoded), and only then renamed into place; the recording is never modified. A clock's
/// drift changes length and pitch together, so resampling is the default; `.stretch` keeps the pitch.
///
/// ```swift
/// let repair = RecordingRepair(
///     recording: "take1.wav", output: "fixed/take1.wav", length: .matching("take1.mov"))
/// let summary = try await repair.run()
/// print(summary.outputFrames)
/// ```
public struct RecordingRepair: Sendable {
    /// Where the repaired recording's length comes from.
    public enum Length: Sendable, Equatable {
        /// Exactly this many frames.
        case frames(Int64)
        /// This long, to the nearest frame at the output's rate (halves rounded up), computed exactly.
        case duration(Duration)
        /// As long as `reference`: a sound file's exact frames at its rate, else a media file's duration.
        case matching(FilePath)
        /// The recording's own length scaled by this exact ratio (output / input).
        case ratio(Rational)
    }

    public var recording: FilePath
    public var output: FilePath
    public var length: Length
    /// Resample (length and pitch together, as a clock's drift needs) or stretch (the pitch kept).
    public var method: RepairMethod = .resample
    public var quality: ResampleQuality = .default
    /// Replace `output` where it exists, a regular file only; otherwise an existing output is refused.
    public var overwrite = false
    /// Threads for one long resample, cut at exact frame positions and joined as one pass would make it.
    public var threads = 1

    public init(recording: FilePath, output: FilePath, length: Length) {
        self.recording = recording
        self.output = output
        self.length = length
    }

    /// Repairs the recording, calling `progress` after each block. Cancelling the calling task stops the repair at
    /// the next block: nothing is placed, and the temporary file is removed.
    public func run(progress: (@Sendable (RepairProgress) -> Void)? = nil) async throws(RecordingError)
        -> RepairSummary
    {
        let stop = StopFlag()
        let request = self
        do {
            return try await withTaskCancellationHandler {
                try await OwnThread.run(name: "driftfix-repair") {
                    try request.blocking(stop: stop, progress: progress)
                }
            } onCancel: {
                stop.raise()
            }
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(file: recording, cause: .failed("\(error)"))
        }
    }

    /// Starts the repair in a task of its own: its progress as an `AsyncSequence`, its result when it ends.
    public func start() -> RepairTask { RepairTask(self) }

    /// The repair on the calling thread; `stop` ends it at the next block.
    private func blocking(stop: StopFlag, progress: (@Sendable (RepairProgress) -> Void)?) throws(RecordingError)
        -> RepairSummary
    {
        let target: TargetLength
        switch length {
        case .frames(let frames): target = .frames(frames)
        case .ratio(let ratio): target = .ratio(ratio)
        case .duration(let duration):
            guard let seconds = Rational(exactly: duration), seconds.numerator > 0 else {
                throw RecordingError(file: recording, cause: .impossible("a length of \(duration) cannot be made"))
            }
            target = .seconds(seconds)
        case .matching(let reference):
            do {
                target = try SingleFile.target(matching: reference)
            } catch {
                throw RecordingError(file: reference, cause: .unreadable(Self.cause(of: error)))
            }
        }
        var request = ProcessRequest(
            input: recording.pathText, output: output.pathText, target: target,
            method: MethodChoice(method: method, reason: "asked for by the caller", byOption: true), quality: quality,
            replacing: overwrite ? .regularFile : .never)
        request.threads = max(1, threads)
        do {
            let result = try FileProcessor.run(request) { done, total in
                if stop.isRaised { throw CancellationError() }
                progress?(RepairProgress(framesWritten: done, framesInAll: total))
            }
            return RepairSummary(result, recording: recording, output: output)
        } catch is CancellationError {
            throw RecordingError(file: recording, cause: .cancelled)
        } catch let error as AudioError {
            if error.cause == .destinationExists {
                throw RecordingError(file: error.path, cause: .outputExists)
            }
            // Only the recording is read here: an error naming any other file (the output or its temporary name: a
            // full disk, a folder that cannot be written) is a failed write, not an input that cannot be read.
            let file = error.path
            let why = error.cause.description
            throw RecordingError(file: file, cause: file == recording ? .unreadable(why) : .failed(why))
        } catch let error as ProcessError {
            if let plan = error.plan {
                throw RecordingError(file: error.path, cause: .impossible(plan.description))
            }
            throw RecordingError(file: error.path, cause: .failed(error.cause))
        } catch {
            throw RecordingError(file: recording, cause: .failed("\(error)"))
        }
    }

    private static func cause(of error: any Error) -> String {
        switch error {
        case let error as AudioError: error.cause.description
        case let error as ProcessError: error.cause
        default: "\(error)"
        }
    }
}

/// How far a repair has come.
public struct RepairProgress: Sendable, Equatable {
    public var framesWritten: Int64
    public var framesInAll: Int64
    /// Between 0 and 1.
    public var fraction: Double { framesInAll > 0 ? Double(framesWritten) / Double(framesInAll) : 1 }
}

/// Set by a task's cancellation, read by the blocking repair after each block.
private final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .relaxed) }
    var isRaised: Bool { raised.load(ordering: .relaxed) }
}
