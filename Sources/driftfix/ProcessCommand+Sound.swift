import ArgumentParser
import DriftKit
import Foundation
import Logging

/// `process --match REF` under the configuration's `content.measure`: the repair by the sound a night's worker
/// makes, for one file.
extension ProcessCommand {
    /// Whether this repair is measured by the sound: `content` and `both` ask for it (and refuse what a repair by
    /// the sound cannot do with a one-line reason); `auto` measures where the lengths are no clock's.
    func bySound(_ configuration: Configuration) throws -> Bool {
        let mode = configuration.content.mode
        guard mode != .headers else { return false }
        let source =
            method.config.map { "content.measure: \(mode.rawValue) (\($0))" }
            ?? "content.measure: \(mode.rawValue)"
        let others =
            [
                target.toFrames != nil ? "--to-frames" : nil, target.toSeconds != nil ? "--to-seconds" : nil,
                target.ratio != nil ? "--ratio" : nil, method.tempo != nil ? "--tempo" : nil,
                edits.trim != nil ? "--trim" : nil, edits.reverse ? "--reverse" : nil,
                edits.fadeIn != nil ? "--fade-in" : nil, edits.fadeOut != nil ? "--fade-out" : nil,
                edits.rate != nil ? "--rate" : nil, format != nil ? "--format" : nil,
                encoding != nil ? "--encoding" : nil, stream != nil ? "--stream" : nil,
            ].compactMap { $0 }
        guard let reference = target.match, others.isEmpty else {
            // `auto` is every night's default: a one-file edit keeps to its options.
            guard mode != .auto else { return false }
            let why =
                target.match == nil
                ? "it needs --match REF, whose sound is the truth" : "not with \(others.joined(separator: ", "))"
            throw ValidationError(
                "\(source): a repair by the sound \(why); use a configuration with content.measure: headers to repair by the lengths"
            )
        }
        return SingleFile.measuresBySound(
            recording: Paths.file(input), reference: Paths.file(reference), policy: configuration.content,
            drift: configuration.drift)
    }

    /// Measures by the sound, repairs by what was measured, proves it in sync and says what it did.
    func runBySound(_ configuration: Configuration) throws {
        guard let reference = target.match else { return }
        let policy = configuration.repair
        let choice = method.choice(for: input, policy: policy)
        let quality = method.quality ?? policy.quality
        let bar = ProgressBar(label: (input as NSString).lastPathComponent)
        let outcome: SingleFile.SoundRepair
        do {
            outcome = try SingleFile.repairBySound(
                recording: Paths.given(input), reference: Paths.given(reference), output: Paths.given(output),
                policy: configuration.content,
                method: choice, quality: quality,
                engine: (method.engine ?? policy.engine(for: Paths.given(input))).engine(for: quality),
                overwrite: overwrite
            ) { done, total in bar.update(done: done, total: total) }
            bar.finish()
        } catch {
            bar.finish()
            throw failure(error)
        }
        let found = outcome.measurement.map {
            $0.isMeasured ? "sound: \($0.summary)" : "sound: \($0.reason ?? "unmeasurable")"
        }
        switch outcome.action {
        case .refuse(let why):
            throw failure("\(input): refused: \(why)")
        case .skip(let why):
            if !quiet { print("\(input): \(why); nothing written" + (found.map { " (\($0))" } ?? "")) }
        case .repair(let operations):
            guard let result = outcome.result else { return }
            let logger = Logger(label: "driftfix.process")
            for warning in result.warnings { logger.warning("\(output): \(warning)") }
            if !quiet {
                let by = outcome.measuredBy == .content ? "by its sound" : "by its lengths (\(outcome.note ?? ""))"
                let residual =
                    outcome.measurement?.residual.map { ", residual \(String($0.inMilliseconds, decimals: 3)) ms" }
                    ?? ""
                print(
                    "\(input) -> \(output): \(by) (\(found ?? "no sound")): \(operations.map(\.description).joined(separator: ", ")), \(result.outputFrames) frames\(residual), verified in \(String(result.elapsed.inSeconds, decimals: 2)) s"
                )
            }
        }
    }
}
