import Foundation

/// How a progress line may be drawn on standard error.
enum ProgressStyle: Equatable {
    /// Not a terminal, or one that cannot move its cursor (`TERM` unset or `dumb`): no progress line at all, log
    /// lines instead.
    case none
    /// `NO_COLOR` is set: redraw with carriage returns and spaces only, never an escape sequence.
    case plain
    /// Carriage return and erase-to-end-of-line (`ESC [ K`).
    case ansi

    /// The style for standard error in this process's environment.
    static let standardError = ProgressStyle(
        isTerminal: isatty(STDERR_FILENO) == 1, environment: ProcessInfo.processInfo.environment)

    init(isTerminal: Bool, environment: [String: String]) {
        let term = environment["TERM"] ?? ""
        if !isTerminal || term.isEmpty || term == "dumb" {
            self = .none
        } else if let noColor = environment["NO_COLOR"], !noColor.isEmpty {
            self = .plain
        } else {
            self = .ansi
        }
    }

    /// Text that puts `line` in place of a previous line `previousWidth` characters wide.
    func redraw(_ line: String, previousWidth: Int) -> String {
        switch self {
        case .none: return ""
        case .ansi: return "\r" + line + "\u{1B}[K"
        case .plain: return "\r" + line + String(repeating: " ", count: max(0, previousWidth - line.count))
        }
    }

    /// Text that blanks a line `width` characters wide and leaves the cursor at its start.
    func erase(width: Int) -> String {
        switch self {
        case .none: return ""
        case .ansi: return "\r\u{1B}[K"
        case .plain: return "\r" + String(repeating: " ", count: width) + "\r"
        }
    }
}
