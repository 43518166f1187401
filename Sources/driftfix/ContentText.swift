import DriftKit
import Foundation

/// Content measurements and sync proofs in the command line's words.
enum ContentText {
    static func json<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    static func table(_ m: ContentMeasurement, recording: String, reference: String) -> String {
        var lines = ["\(recording.escapedForTerminal) against the sound of \(reference.escapedForTerminal)"]
        func row(_ name: String, _ value: String) {
            lines.append("  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + value)
        }
        row("model", m.model.rawValue + (m.reason.map { " (\($0))" } ?? ""))
        if let offset = m.offset?.inMilliseconds {
            row(
                "offset",
                "\(offset >= 0 ? "+" : "")\(String(offset, decimals: 3)) ms"
                    + (m.offsetError.map { " ± \(String($0.inMilliseconds, decimals: 3)) ms" } ?? "")
                    + (offset > 0
                        ? " (the recording started after the reference)"
                        : offset < 0 ? " (the recording started before the reference)" : ""))
        }
        if let drift = m.driftPPM {
            row(
                "drift",
                "\(String(drift, decimals: 3)) ppm"
                    + (m.driftPPMError.map { " ± \(String($0, decimals: 3)) ppm (95 %)" } ?? "")
                    + (m.clock == nil ? "" : " on average"))
        }
        if let clock = m.clock {
            func ppm(_ value: Double) -> String { (value >= 0 ? "+" : "") + String(value, decimals: 2) + " ppm" }
            row(
                "clock",
                "\(ppm(clock.startPPM)) at \(String(clock.from.inSeconds, decimals: 1)) s → \(ppm(clock.endPPM)) at "
                    + "\(String(clock.to.inSeconds, decimals: 1)) s (between \(ppm(clock.minPPM)) and \(ppm(clock.maxPPM)))"
            )
            for step in clock.rateSteps {
                row(
                    "rate step",
                    "at \(String(step.at.inSeconds, decimals: 2)) s ± \(String(step.uncertainty.inSeconds, decimals: 2)) s: "
                        + "\(ppm(step.fromPPM)) → \(ppm(step.toPPM))")
            }
        }
        for dropout in m.dropouts {
            row(
                "dropout",
                "at \(String(dropout.at.inSeconds, decimals: 3)) s ± \(String(dropout.uncertainty.inMilliseconds, decimals: 1)) ms: "
                    + "\(String(dropout.missing.inMilliseconds, decimals: 2)) ms missing")
        }
        if let agree = m.headersAgree {
            row("headers", agree ? "agree" : "disagree: \(m.disagreement ?? "unexplained")")
        }
        row(
            "confidence",
            "\(String(m.confidence, decimals: 2)) (\(m.agreeingWindows) of \(m.windows) windows with sound agree"
                + (m.scatter.map { ", scatter \(String($0.inMilliseconds, decimals: 3)) ms" } ?? "") + ")")
        return lines.joined(separator: "\n")
    }

    static func verification(_ v: SyncVerification, file: String) -> String {
        let residual = v.residual.map { "\(String($0.inMilliseconds, decimals: 3)) ms" } ?? "unknown"
        let verdict = v.passed ? "IN SYNC" : "OUT OF SYNC"
        var line =
            "\(file.escapedForTerminal): residual lag \(residual) (limit \(String(v.limit.inMilliseconds, decimals: 3)) ms) across "
            + "\(v.measurement.agreeingWindows) windows: \(verdict)"
        if let reason = v.reason, !v.passed { line += " (\(reason))" }
        return line
    }
}

extension Duration {
    /// The span as the command prints it: milliseconds or seconds.
    var inMilliseconds: Double { self / .milliseconds(1) }
    var inSeconds: Double { self / .seconds(1) }
}
