import Foundation

/// A one-line progress bar on standard error, drawn only when it is a terminal, at most ten times a second.
final class ProgressBar {
    private let label: String
    private let enabled: Bool
    private let start = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drawn = false

    init(label: String) {
        self.label = label
        self.enabled = isatty(STDERR_FILENO) == 1
    }

    func update(done: Int64, total: Int64) {
        guard enabled, total > 0 else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(100) || done == total else { return }
        lastDraw = now
        let fraction = Double(done) / Double(total)
        let width = 30
        let filled = Int(fraction * Double(width))
        let elapsed = (now - start).seconds
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        // Swift strings are not C varargs on Linux: interpolate them, format only the numbers.
        let line = "\r\(label) [\(bar)] " + String(format: "%5.1f%%  ETA %4.0f s", fraction * 100, eta)
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
