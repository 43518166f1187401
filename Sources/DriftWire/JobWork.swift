import DriftCore
import DriftSchema

/// What a job does: exactly one kind of work, matched exhaustively where it runs, carried whole on the wire and in
/// the journal. Each kind holds only what it needs; nothing stands in for a field another kind has.
public enum JobWork: Sendable, Equatable {
    /// A recording's length changed by its headers' plan.
    case header(HeaderRepair)
    /// A recording measured by its reference's sound, and (with an output) repaired by what was measured.
    case content(ContentJob)
    /// The print of the input's sound (pairing by sound) and its start timecode.
    case soundPrint
    /// One clip's sync: its places measured, the recording that heard it chosen, its audio cut (with outputs).
    case clipSync(ClipTask)
    /// Nothing: exercises dispatch only (benchmarks); the worker answers at once with `frames` as the output length.
    case noop(frames: Int64)

    /// The kinds, as the journal and the logs name them.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case header, content, print, clip, noop
    }

    public var kind: Kind {
        switch self {
        case .header: .header
        case .content: .content
        case .soundPrint: .print
        case .clipSync: .clip
        case .noop: .noop
        }
    }

    /// Every path this work may write (below the job's output root): none for measurements and prints.
    public var outputs: [String] {
        switch self {
        case .header(let repair): [repair.output]
        case .content(let content): content.output.map { [$0] } ?? []
        case .clipSync(let task): task.places.compactMap(\.outputText)
        case .soundPrint, .noop: []
        }
    }

    /// The same work with every path rewritten by `map` (a worker's path map).
    public func mapped(_ map: (String) -> String) -> JobWork {
        switch self {
        case .header(var repair):
            repair.output = map(repair.output)
            return .header(repair)
        case .content(var content):
            content.reference = map(content.reference)
            content.output = content.output.map(map)
            return .content(content)
        case .clipSync(var task):
            task.clipText = map(task.clipText)
            for p in task.places.indices {
                task.places[p].recordingText = map(task.places[p].recordingText)
                task.places[p].outputText = task.places[p].outputText.map(map)
            }
            return .clipSync(task)
        case .soundPrint, .noop:
            return self
        }
    }
}

/// A length change planned from the headers: the recording resampled or stretched to exactly `targetFrames`.
public struct HeaderRepair: Codable, Sendable, Equatable {
    public var output: String
    public var targetFrames: Int64
    public var method: RepairMethod
    public var methodReason: String
    public var quality: ResampleQuality
    /// The resampling library that runs (its coding history and the journal name it).
    public var engine: ResampleEngine

    public init(
        output: String, targetFrames: Int64, method: RepairMethod, methodReason: String, quality: ResampleQuality,
        engine: ResampleEngine = .default
    ) {
        self.output = output
        self.targetFrames = targetFrames
        self.method = method
        self.methodReason = methodReason
        self.quality = quality
        self.engine = engine
    }
}

extension JobWork: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, header, content, clip, frames
    }

    /// `{"kind":"header","header":{...}}`: the kind first, then its one payload.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(Kind.self, forKey: .kind) {
        case .header: self = .header(try c.decode(HeaderRepair.self, forKey: .header))
        case .content: self = .content(try c.decode(ContentJob.self, forKey: .content))
        case .print: self = .soundPrint
        case .clip: self = .clipSync(try c.decode(ClipTask.self, forKey: .clip))
        case .noop: self = .noop(frames: try c.decode(Int64.self, forKey: .frames))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        switch self {
        case .header(let repair): try c.encode(repair, forKey: .header)
        case .content(let content): try c.encode(content, forKey: .content)
        case .clipSync(let task): try c.encode(task, forKey: .clip)
        case .noop(let frames): try c.encode(frames, forKey: .frames)
        case .soundPrint: break
        }
    }
}
