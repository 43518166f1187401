/// At most `perWindow` lines per `window` seconds; then one line saying how many were suppressed.
public struct RateLimitedLog: Sendable {
    public let perWindow: Int
    public let window: Double
    private var windowStart = -Double.infinity
    private var count = 0
    private var suppressed = 0

    public init(perWindow: Int, window: Double) {
        self.perWindow = perWindow
        self.window = window
    }

    /// The line to log now (with a note of what was suppressed before it), or nil to drop it.
    public mutating func admit(_ line: String, at now: Double) -> String? {
        if now - windowStart >= window {
            let note = suppressed > 0 ? " (\(suppressed) similar lines suppressed)" : ""
            windowStart = now
            count = 0
            suppressed = 0
            count += 1
            return line + note
        }
        guard count < perWindow else {
            suppressed += 1
            return nil
        }
        count += 1
        return line
    }
}
