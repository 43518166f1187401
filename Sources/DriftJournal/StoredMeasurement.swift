import DriftCore

// The journal's own forms of what its JSON columns hold (a measurement, a clip's rows and task, a job's results and
// policy). They are copies, field by field, of the wire's and the report's types on purpose: a field renamed or
// retyped there no longer changes what the journal stores, it stops this file compiling, and the conversion (or a
// migration) says what the journal does about it. Their keys are those every release since v4 wrote, so the rows of
// earlier journals read as they are (StoredFormTests pins the text). Names (a model, a status, an engine) are stored
// as their stable names and operations as their text; a name this build does not know makes the row unreadable, as
// any damaged row.

/// A content measurement (`pair.content`, `output.content`, a clip's row, a content job's result).
struct StoredMeasurement: Codable, Equatable {
    struct Point: Codable, Equatable {
        var atSeconds: Double
        var lagMs: Double
    }

    struct Dropout: Codable, Equatable {
        var atSeconds: Double
        var missingMs: Double
        var uncertaintyMs: Double?
    }

    struct Clock: Codable, Equatable {
        struct Drift: Codable, Equatable {
            var atSeconds: Double
            var driftPPM: Double
        }

        struct Step: Codable, Equatable {
            var atSeconds: Double
            var uncertaintySeconds: Double
            var fromPPM: Double
            var toPPM: Double
        }

        var lag: [Point]
        var drift: [Drift]
        var startPPM: Double
        var endPPM: Double
        var fromSeconds: Double
        var toSeconds: Double
        var minPPM: Double
        var maxPPM: Double
        var rateSteps: [Step]?
    }

    var offsetMs: Double?
    var offsetMsError: Double?
    var driftPPM: Double?
    var driftPPMError: Double?
    var model: String
    var confidence: Double
    var dropouts: [Dropout]
    var headersAgree: Bool?
    var disagreement: String?
    var residualMs: Double?
    var residualLimitMs: Double?
    var residualCurve: [Point]?
    var reason: String?
    var unmeasurable: String?
    var referenceSoundSeconds: Double?
    var scatterMs: Double?
    var windows: Int
    var agreeingWindows: Int
    var curve: [Point]
    var clock: Clock?

    init(_ value: ContentMeasurement) {
        offsetMs = value.offsetMs
        offsetMsError = value.offsetMsError
        driftPPM = value.driftPPM
        driftPPMError = value.driftPPMError
        model = value.model.rawValue
        confidence = value.confidence
        dropouts = value.dropouts.map {
            Dropout(atSeconds: $0.atSeconds, missingMs: $0.missingMs, uncertaintyMs: $0.uncertaintyMs)
        }
        headersAgree = value.headersAgree
        disagreement = value.disagreement
        residualMs = value.residualMs
        residualLimitMs = value.residualLimitMs
        residualCurve = value.residualCurve.map(Self.points)
        reason = value.reason
        unmeasurable = value.unmeasurable?.rawValue
        referenceSoundSeconds = value.referenceSoundSeconds
        scatterMs = value.scatterMs
        windows = value.windows
        agreeingWindows = value.agreeingWindows
        curve = Self.points(value.curve)
        clock = value.clock.map {
            Clock(
                lag: Self.points($0.lag),
                drift: $0.drift.map { Clock.Drift(atSeconds: $0.atSeconds, driftPPM: $0.driftPPM) },
                startPPM: $0.startPPM, endPPM: $0.endPPM, fromSeconds: $0.fromSeconds, toSeconds: $0.toSeconds,
                minPPM: $0.minPPM, maxPPM: $0.maxPPM,
                rateSteps: $0.rateSteps.map {
                    Clock.Step(
                        atSeconds: $0.atSeconds, uncertaintySeconds: $0.uncertaintySeconds, fromPPM: $0.fromPPM,
                        toPPM: $0.toPPM)
                })
        }
    }

    /// The measurement; nil where a name is not one this build knows.
    var value: ContentMeasurement? {
        guard let model = ContentMeasurement.Model(rawValue: model) else { return nil }
        var unmeasurableName: ContentMeasurement.Unmeasurable?
        if let unmeasurable {
            guard let known = ContentMeasurement.Unmeasurable(rawValue: unmeasurable) else { return nil }
            unmeasurableName = known
        }
        var value = ContentMeasurement(
            offsetMs: offsetMs, driftPPM: driftPPM, driftPPMError: driftPPMError, model: model, confidence: confidence,
            dropouts: dropouts.map {
                .init(atSeconds: $0.atSeconds, missingMs: $0.missingMs, uncertaintyMs: $0.uncertaintyMs ?? 0)
            },
            headersAgree: headersAgree, disagreement: disagreement, residualMs: residualMs, reason: reason,
            unmeasurable: unmeasurableName, scatterMs: scatterMs, windows: windows, agreeingWindows: agreeingWindows,
            curve: Self.lagPoints(curve))
        value.offsetMsError = offsetMsError
        value.residualLimitMs = residualLimitMs
        value.residualCurve = residualCurve.map(Self.lagPoints)
        value.referenceSoundSeconds = referenceSoundSeconds
        value.clock = clock.map {
            ClockPath(
                lag: Self.lagPoints($0.lag),
                drift: $0.drift.map { .init(atSeconds: $0.atSeconds, driftPPM: $0.driftPPM) },
                startPPM: $0.startPPM, endPPM: $0.endPPM, fromSeconds: $0.fromSeconds, toSeconds: $0.toSeconds,
                minPPM: $0.minPPM, maxPPM: $0.maxPPM,
                rateSteps: ($0.rateSteps ?? []).map {
                    .init(
                        atSeconds: $0.atSeconds, uncertaintySeconds: $0.uncertaintySeconds, fromPPM: $0.fromPPM,
                        toPPM: $0.toPPM)
                })
        }
        return value
    }

    private static func points(_ points: [ContentMeasurement.LagPoint]) -> [Point] {
        points.map { Point(atSeconds: $0.atSeconds, lagMs: $0.lagMs) }
    }

    private static func lagPoints(_ points: [Point]) -> [ContentMeasurement.LagPoint] {
        points.map { .init(atSeconds: $0.atSeconds, lagMs: $0.lagMs) }
    }
}

/// Operations as the journal stores them: their stable text (`resample 2880377`), which `RepairOperation` parses.
enum StoredOperations {
    static func text(_ operations: [RepairOperation]) -> [String] { operations.map(\.description) }

    /// Nil where a line is not an operation.
    static func value(_ lines: [String]) -> [RepairOperation]? { lines.convertedWhole { RepairOperation($0) } }
}

extension Array {
    /// Every element converted, or nil where one cannot be: a stored record is read whole or not at all.
    func convertedWhole<Converted>(_ convert: (Element) -> Converted?) -> [Converted]? {
        var converted: [Converted] = []
        converted.reserveCapacity(count)
        for element in self {
            guard let value = convert(element) else { return nil }
            converted.append(value)
        }
        return converted
    }
}
