import DriftCore
import Foundation

/// What a worker reports for a job: which lease it answers, and what the job came to.
public struct JobResult: Sendable, Equatable {
    public var id: Int
    public var attempt: Int
    public var worker: String
    public var seconds: Double
    /// The job's `run`, echoed.
    public var run: Int64?
    public var outcome: JobOutcome
    /// What QA should know of a repaired output's metadata (a chunk its type cannot hold, a marker moved off its
    /// sound); nil when nothing.
    public var warnings: [String]?

    public init(
        id: Int, attempt: Int, worker: String, seconds: Double, outcome: JobOutcome, run: Int64? = nil,
        warnings: [String]? = nil
    ) {
        self.id = id
        self.attempt = attempt
        self.worker = worker
        self.seconds = seconds
        self.outcome = outcome
        self.run = run
        self.warnings = warnings
    }
}

extension JobOutcome {
    /// The outcome laid flat, as the wire message and the journal's row store it: a field per part, nil where the case
    /// has none. For those writers and for tests; a reader asks its question by switching on the case.
    public struct Columns: Sendable, Equatable {
        public var succeeded: Bool
        /// The output written and verified: a header repair's, or a content job's that repaired.
        public var output: WrittenOutput?
        /// A content job's decision; also a failed sync proof's measurement.
        public var content: ContentResult?
        public var sound: SoundResult?
        public var failure: JobFailure?
    }

    public var columns: Columns {
        switch self {
        case .repaired(let output):
            Columns(succeeded: true, output: output, content: nil, sound: nil, failure: nil)
        case .decided(let content, let output):
            Columns(succeeded: true, output: output, content: content, sound: nil, failure: nil)
        case .heard(let sound):
            Columns(succeeded: true, output: nil, content: nil, sound: sound, failure: nil)
        case .failed(let failure):
            Columns(succeeded: false, output: nil, content: failure.content, sound: nil, failure: failure)
        }
    }
}

/// What a job came to: each case carries exactly what it means.
extension JobOutcome {
    /// The outcome in one word, as traces name it: `repaired`, a content decision, `heard` or `failed`.
    public var name: String {
        switch self {
        case .repaired: "repaired"
        case .decided(let content, _): content.decision.rawValue
        case .heard: "heard"
        case .failed: "failed"
        }
    }
}

public enum JobOutcome: Sendable, Equatable {
    /// A header repair's output (or a no-op's frames), written and verified.
    case repaired(WrittenOutput)
    /// A content job's decision and measurement; its output when it repaired.
    case decided(ContentResult, output: WrittenOutput?)
    /// A sound job's print, or a clip's rows.
    case heard(SoundResult)
    /// Failed: why, and whether another attempt may succeed.
    case failed(JobFailure)
}

/// An output as the worker read it back after writing.
public struct WrittenOutput: Sendable, Equatable {
    /// Frames in the written output, read back from it.
    public var frames: Int64
    /// XXH3-64 of the output file's bytes, `xxh3:` and 16 hex digits; nil where nothing was written (a no-op).
    public var checksum: String?

    public init(frames: Int64, checksum: String?) {
        self.frames = frames
        self.checksum = checksum
    }
}

/// Why a job failed.
public struct JobFailure: Sendable, Equatable {
    /// One line naming the file and the cause.
    public var message: String
    public var kind: FailureKind
    /// A written output that did not prove in sync: the measurement that failed, with its residual curve.
    public var content: ContentResult?
    /// Whether another attempt might succeed (a write failure) rather than fail the same way (a corrupt input).
    public var retryable: Bool { kind.retryable }

    public init(message: String, kind: FailureKind, content: ContentResult? = nil) {
        self.message = message
        self.kind = kind
        self.content = content
    }
}

// The wire keeps version 7's flat object (succeeded, outputFrames, checksum, error, retryable, failure, content,
// sound), so workers of either shape understand each other; the cases are rebuilt from it at the boundary.
extension JobResult: Codable {
    private enum Keys: String, CodingKey {
        case id, attempt, worker, seconds, run, warnings
        case succeeded, outputFrames, checksum, error, retryable, failure, content, sound
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        id = try c.decode(Int.self, forKey: .id)
        attempt = try c.decode(Int.self, forKey: .attempt)
        worker = try c.decode(String.self, forKey: .worker)
        seconds = try c.decode(Double.self, forKey: .seconds)
        run = try c.decodeIfPresent(Int64.self, forKey: .run)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings)
        outcome = try JobOutcome(
            succeeded: c.decode(Bool.self, forKey: .succeeded),
            output: c.decodeIfPresent(Int64.self, forKey: .outputFrames).map {
                WrittenOutput(frames: $0, checksum: try c.decodeIfPresent(String.self, forKey: .checksum))
            },
            error: c.decodeIfPresent(String.self, forKey: .error),
            kind: c.decodeIfPresent(FailureKind.self, forKey: .failure),
            retryable: c.decodeIfPresent(Bool.self, forKey: .retryable) ?? false,
            content: c.decodeIfPresent(ContentResult.self, forKey: .content),
            sound: c.decodeIfPresent(SoundResult.self, forKey: .sound)
        ).orThrow(
            DecodingError.dataCorruptedError(
                forKey: .succeeded, in: c, debugDescription: "a succeeded result that carries nothing"))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)
        try c.encode(attempt, forKey: .attempt)
        try c.encode(worker, forKey: .worker)
        try c.encode(seconds, forKey: .seconds)
        try c.encodeIfPresent(run, forKey: .run)
        try c.encodeIfPresent(warnings, forKey: .warnings)
        let flat = outcome.columns
        try c.encode(flat.succeeded, forKey: .succeeded)
        try c.encodeIfPresent(flat.output?.frames, forKey: .outputFrames)
        try c.encodeIfPresent(flat.output?.checksum, forKey: .checksum)
        try c.encodeIfPresent(flat.failure?.message, forKey: .error)
        try c.encode(flat.failure?.retryable ?? false, forKey: .retryable)
        try c.encodeIfPresent(flat.failure?.kind, forKey: .failure)
        try c.encodeIfPresent(flat.content, forKey: .content)
        try c.encodeIfPresent(flat.sound, forKey: .sound)
    }
}

extension JobOutcome {
    /// The outcome a flat record describes (the wire's object, the journal's columns); nil when it succeeded with
    /// nothing to show. A failure from a worker that names no kind takes what its `retryable` flag implies.
    public init?(
        succeeded: Bool, output: WrittenOutput?, error: String?, kind: FailureKind?, retryable: Bool,
        content: ContentResult?, sound: SoundResult?
    ) {
        if !succeeded {
            self = .failed(
                JobFailure(
                    message: error ?? "failed", kind: kind ?? (retryable ? .outputUnwritable : .other),
                    content: content))
        } else if let content {
            self = .decided(content, output: output)
        } else if let sound {
            self = .heard(sound)
        } else if let output {
            self = .repaired(output)
        } else {
            return nil
        }
    }
}

extension Optional {
    fileprivate func orThrow(_ error: @autoclosure () -> some Error) throws -> Wrapped {
        guard let self else { throw error() }
        return self
    }
}
