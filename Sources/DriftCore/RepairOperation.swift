/// One step of a pair's repair, in recording frames. A plan lists them in the order they run.
///
/// Header measurements know only two lengths, so their plans hold one `resample` or `stretch`. Content measurements
/// (a start offset, dropouts at known places) add the others: trim or pad the start, trim or pad the end (a clip cut
/// from a long recording), re-insert missing samples where they went missing, then change the length.
public enum RepairOperation: Hashable, Sendable, CustomStringConvertible, Codable {
    /// Drop this many frames at the start (the recording started before its reference).
    case trimStart(frames: Int64)
    /// Put this many frames of silence before the start (the recording started after its reference).
    case padStart(frames: Int64)
    /// Drop this many frames at the end (a long recording cut to the clip it covers).
    case trimEnd(frames: Int64)
    /// Put this many frames of silence after the end (the recording stopped before its reference did).
    case padEnd(frames: Int64)
    /// Re-insert `frames` frames that went missing just before recording frame `atFrame` (a dropout).
    case insert(atFrame: Int64, frames: Int64)
    /// Resample to exactly `frames` frames: length and pitch together, as a clock fault needs.
    case resample(frames: Int64)
    /// Time-stretch to exactly `frames` frames, keeping the pitch.
    case stretch(frames: Int64)
    /// Resample to exactly `frames` frames along a clock that wandered: the ratio follows the path from frame to
    /// frame, each knot an input frame (of the stream the operations before made) and the output frame it becomes.
    case warp(frames: Int64, knots: [WarpKnot])

    /// The frame count this operation leaves, given the count before it.
    public func frames(after input: Int64) -> Int64 {
        switch self {
        case .trimStart(let frames), .trimEnd(let frames): return input - frames
        case .padStart(let frames), .padEnd(let frames), .insert(_, let frames): return input + frames
        case .resample(let frames), .stretch(let frames), .warp(let frames, _): return frames
        }
    }

    /// A stable text form, for the journal and logs: `resample 2880377`, `insert 48000+480`, ...
    public var description: String {
        switch self {
        case .trimStart(let frames): return "trim-start \(frames)"
        case .padStart(let frames): return "pad-start \(frames)"
        case .trimEnd(let frames): return "trim-end \(frames)"
        case .padEnd(let frames): return "pad-end \(frames)"
        case .insert(let at, let frames): return "insert \(at)+\(frames)"
        case .resample(let frames): return "resample \(frames)"
        case .stretch(let frames): return "stretch \(frames)"
        case .warp(let frames, let knots):
            return "warp \(frames) " + knots.map { "\($0.input):\($0.output)" }.joined(separator: ",")
        }
    }

    /// Parses `description`; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: " ")
        if parts.count == 3, parts[0] == "warp", let n = Int64(parts[1]), n > 0 {
            var knots: [WarpKnot] = []
            for pair in parts[2].split(separator: ",") {
                let sides = pair.split(separator: ":")
                guard sides.count == 2, let input = Int64(sides[0]), let output = Int64(sides[1]) else { return nil }
                knots.append(WarpKnot(input: input, output: output))
            }
            guard WarpKnot.isPath(knots, frames: n) else { return nil }
            self = .warp(frames: n, knots: knots)
            return
        }
        guard parts.count == 2 else { return nil }
        let value = parts[1]
        switch parts[0] {
        case "trim-start":
            guard let n = Int64(value), n >= 0 else { return nil }
            self = .trimStart(frames: n)
        case "pad-start":
            guard let n = Int64(value), n >= 0 else { return nil }
            self = .padStart(frames: n)
        case "trim-end":
            guard let n = Int64(value), n >= 0 else { return nil }
            self = .trimEnd(frames: n)
        case "pad-end":
            guard let n = Int64(value), n >= 0 else { return nil }
            self = .padEnd(frames: n)
        case "resample":
            guard let n = Int64(value), n > 0 else { return nil }
            self = .resample(frames: n)
        case "stretch":
            guard let n = Int64(value), n > 0 else { return nil }
            self = .stretch(frames: n)
        case "insert":
            let sides = value.split(separator: "+")
            guard sides.count == 2, let at = Int64(sides[0]), let n = Int64(sides[1]), at >= 0, n > 0 else {
                return nil
            }
            self = .insert(atFrame: at, frames: n)
        default: return nil
        }
    }

    /// The text form for people: a warp's knots counted, not listed (a long take has hundreds).
    public var brief: String {
        if case .warp(let frames, let knots) = self { return "warp \(frames) along \(knots.count) knots" }
        return description
    }

    /// The operation's name in its text form: `trim-start`, `insert`, `resample`...
    public var name: String { String(description.prefix { $0 != " " }) }

    /// Coded as its stable text form (`"resample 2880377"`), as reports, the wire and the journal write it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let operation = RepairOperation(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a repair operation")
        }
        self = operation
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// A list in its stable text form, one operation per line.
    public static func text(_ operations: [RepairOperation]) -> String {
        operations.map(\.description).joined(separator: "\n")
    }

    /// Parses `text(_:)`; nil when any line is not an operation.
    public static func list(_ text: String) -> [RepairOperation]? {
        var operations: [RepairOperation] = []
        for line in text.split(separator: "\n") {
            guard let operation = RepairOperation(line) else { return nil }
            operations.append(operation)
        }
        return operations
    }
}

/// A point of a warp: stream frame `input` becomes output frame `output`; between two knots the ratio is constant.
public struct WarpKnot: Hashable, Sendable, Codable {
    public var input: Int64
    public var output: Int64

    public init(input: Int64, output: Int64) {
        self.input = input
        self.output = output
    }

    /// Whether `knots` make a path to `frames` output frames: from (0, 0), both sides strictly increasing, ending at
    /// `frames` output frames.
    public static func isPath(_ knots: [WarpKnot], frames: Int64) -> Bool {
        guard let first = knots.first, let last = knots.last, knots.count >= 2, first == WarpKnot(input: 0, output: 0),
            last.output == frames
        else { return false }
        return zip(knots, knots.dropFirst()).allSatisfy { $1.input > $0.input && $1.output > $0.output }
    }
}
