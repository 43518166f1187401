import ArgumentParser
import DriftKit
import Foundation
import Logging

import struct SystemPackage.FilePath

/// What `scan`, `repair` and `sync` share once their flags are settings: the one run use case, its refusals worded
/// as the options that asked for them (a usage error, exit 2), its other failures as one line (exit 1).
enum RunCommand {
    static func run(_ settings: Run.Settings, logger: Logger, observer: RunObserver?) async throws -> Run.Outcome {
        // Work on workers stops gracefully on a first signal (the service group's) and at once on a second; work on
        // threads stops at the first, its temporary files removed as it dies.
        var threads = false
        if case .threads? = settings.work { threads = true }
        let signals = threads ? nil : SecondSignal()
        defer { _ = signals }
        do {
            return try await Run(settings: settings, logger: logger, observer: observer).run()
        } catch .invalidSettings(let refusal) {
            FileHandle.standardError.write(
                Data("driftfix: \(words(refusal, pairing: settings.pairing).escapedForTerminal)\n".utf8))
            throw ExitCode(ExitStatus.usage)
        } catch {
            throw failure(error.description)
        }
    }

    /// A refused setting in the command line's words: the option, the pairing path, and why.
    static func words(_ refusal: Run.SettingsError, pairing: PairBy) -> String {
        guard let setting = refusal.setting else { return refusal.reason }
        return "\(option(for: setting)) (pairing by \(pairing.rawValue)): \(refusal.reason)"
    }

    /// The option that sets `setting`.
    static func option(for setting: Run.Setting) -> String {
        switch setting {
        case .outputRoot: "--out"
        case .measureContent: "--content"
        case .quality: "--quality"
        case .engine: "--engine"
        case .mux: "--mux"
        case .journal: "--journal"
        case .resume: "--resume"
        case .full: "--full"
        case .metricsFile: "--metrics"
        case .metricsAddress: "--metrics-address"
        case .work: "the worker options (--workers, --bind, --launcher, ...)"
        case .timeline: "--timeline"
        }
    }

    /// The roots every command starts from, absolute.
    static func roots(_ roots: [String]) -> [FilePath] { roots.map(Paths.file) }

    /// Says what else went wrong, one line each, and ends with the exit code the outcome earns.
    static func finish(_ outcome: Run.Outcome) throws {
        TimelineOptions.said(outcome)
        for problem in outcome.problems {
            FileHandle.standardError.write(Data("driftfix: \(problem.description.escapedForTerminal)\n".utf8))
        }
        if !outcome.succeeded { throw ExitCode(ExitStatus.failure) }
    }

    /// The line a night ends with: how many pairs ended each way.
    static func outcomeLine(_ report: ScanReport) -> String {
        let counts = report.summary.outcomes
        return RepairOutcome.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
    }
}
