import DriftKit
import Foundation

/// A one-line progress bar on standard error, drawn only on a terminal that can redraw a line (see
/// `ProgressStyle`), at most ten times a second.
final class ProgressBar {
    private let label: String
    private let style: ProgressStyle
    private let start = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var width = 0

    init(label: String, style: ProgressStyle = .standardError) {
        self.label = label.escapedForTerminal
        self.style = style
    }

    func update(done: Int64, total: Int64) {
        guard style != .none, total > 0 else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(100) || done == total else { return }
        lastDraw = now
        let fraction = Double(done) / Double(total)
        let filled = Int(fraction * 30)
        let elapsed = (now - start).inSeconds
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
        // Swift strings are not C varargs on Linux: interpolate them, format only the numbers.
        let line = "\(label) [\(bar)] " + String(format: "%5.1f%%  ETA %4.0f s", fraction * 100, eta)
        FileHandle.standardError.write(Data(style.redraw(line, previousWidth: width).utf8))
        width = line.count
    }

    func finish() {
        guard width > 0 else { return }
        FileHandle.standardError.write(Data(style.erase(width: width).utf8))
        width = 0
    }
}
