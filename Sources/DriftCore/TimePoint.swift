/// A position in a file, as the user writes it: seconds (`12.5`) or frames (`600000f`).
public enum TimePoint: Sendable, Equatable, CustomStringConvertible {
    case seconds(Rational)
    case frames(Int64)

    /// Parses `12.5`, `1001/30` (seconds) or `600000f` (frames).
    public init(parsing text: String) throws(RationalParseError) {
        if text.hasSuffix("f") {
            guard let frames = Int64(text.dropLast()), frames >= 0 else {
                throw RationalParseError(text: text, reason: "frames must be a whole number, like 48000f")
            }
            self = .frames(frames)
        } else {
            let seconds = try Rational(parsing: text)
            guard seconds.numerator >= 0 else { throw RationalParseError(text: text, reason: "negative time") }
            self = .seconds(seconds)
        }
    }

    /// The frame index at `sampleRate`, rounded to the nearest frame.
    public func frame(atRate sampleRate: Int) -> Int64? {
        switch self {
        case .frames(let n): return n
        case .seconds(let s): return s.multipliedRounded(by: Int64(sampleRate))
        }
    }

    public var description: String {
        switch self {
        case .seconds(let s): return "\(s.decimalString()) s"
        case .frames(let n): return "frame \(n)"
        }
    }
}

/// `--trim START:END`: either side may be empty (the start or the end of the file).
public struct TrimRange: Sendable, Equatable {
    public var start: TimePoint?
    public var end: TimePoint?

    public init(start: TimePoint?, end: TimePoint?) {
        self.start = start
        self.end = end
    }

    /// Parses `START:END`, each side seconds or frames (`f` suffix), either side optional.
    public init(parsing text: String) throws(RationalParseError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw RationalParseError(text: text, reason: "expected START:END") }
        start = parts[0].isEmpty ? nil : try TimePoint(parsing: String(parts[0]))
        end = parts[1].isEmpty ? nil : try TimePoint(parsing: String(parts[1]))
    }

    /// The frames `[start, end)` inside a file of `frames` frames at `sampleRate`, or why it does not fit.
    public func frames(in frames: Int64, sampleRate: Int) -> Result<Range<Int64>, EditError> {
        let first = start?.frame(atRate: sampleRate) ?? 0
        let last = end?.frame(atRate: sampleRate) ?? frames
        guard last <= frames else {
            return .failure(
                .outOfRange(
                    option: "--trim", "end \(end.map { "\($0)" } ?? "") is past the end of the file (\(frames) frames)")
            )
        }
        guard first < last else {
            return .failure(.outOfRange(option: "--trim", "start must come before end (frames \(first) and \(last))"))
        }
        return .success(first..<last)
    }
}

/// An edit that does not fit the file it is applied to; names the option at fault.
public enum EditError: Error, Equatable, CustomStringConvertible {
    case outOfRange(option: String, String)

    public var description: String {
        switch self {
        case .outOfRange(let option, let why): return "\(option): \(why)"
        }
    }
}
