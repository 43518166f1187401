import DriftCore
import DriftSchema

/// A clip job's task as the journal stores it (`job.work`): its own copy of `ClipTask` (StoredMeasurement.swift says
/// why).
struct StoredClipTask: Codable, Equatable {
    struct Candidate: Codable, Equatable {
        var recording: Int
        var startSeconds: Double
        var clarity: Double
        var ambiguity: Double
        var coverage: Double
        var sharpClarity: Double?
        var sharpAmbiguity: Double?
        var byHarmony: Bool?
        var rivals: Int?
        var tentative: Bool?
        var repeated: Bool?
    }

    struct Place: Codable, Equatable {
        var recording: String
        var candidate: Candidate
        var timecodeStartSeconds: Double?
        var recordingFrames: Int64?
        var sampleRate: Int?
        var output: String?
        var outputConflict: String?
        var engine: String?
    }

    var clip: String
    var clipSeconds: Double
    var places: [Place]
    var minimumConfidence: Double
    var residualLimitMs: Double
    var quality: String
    var mux: Bool?

    init(_ task: ClipTask) {
        clip = task.clipText
        clipSeconds = task.clipSeconds
        places = task.places.map { place in
            let found = place.candidate
            return Place(
                recording: place.recordingText,
                candidate: Candidate(
                    recording: found.recording, startSeconds: found.startSeconds, clarity: found.clarity,
                    ambiguity: found.ambiguity, coverage: found.coverage, sharpClarity: found.sharpClarity,
                    sharpAmbiguity: found.sharpAmbiguity, byHarmony: found.byHarmony, rivals: found.rivals,
                    tentative: found.tentative, repeated: found.repeated),
                timecodeStartSeconds: place.timecodeStartSeconds, recordingFrames: place.recordingFrames,
                sampleRate: place.sampleRate, output: place.outputText, outputConflict: place.outputConflict,
                engine: place.engine.rawValue)
        }
        minimumConfidence = task.minimumConfidence
        residualLimitMs = task.residualLimitMs
        quality = task.quality.rawValue
        mux = task.mux
    }

    /// The task; nil where a quality or an engine is not one this build knows.
    var value: ClipTask? {
        guard let quality = ResampleQuality(rawValue: quality) else { return nil }
        var found: [ClipTask.Place] = []
        for place in places {
            let stored = place.candidate
            var candidate = SoundCandidate(
                recording: stored.recording, startSeconds: stored.startSeconds, clarity: stored.clarity,
                ambiguity: stored.ambiguity, coverage: stored.coverage, sharpClarity: stored.sharpClarity,
                sharpAmbiguity: stored.sharpAmbiguity)
            candidate.byHarmony = stored.byHarmony
            candidate.rivals = stored.rivals
            candidate.tentative = stored.tentative
            candidate.repeated = stored.repeated
            var value = ClipTask.Place(recording: place.recording, candidate: candidate)
            value.timecodeStartSeconds = place.timecodeStartSeconds
            value.recordingFrames = place.recordingFrames
            value.sampleRate = place.sampleRate
            value.outputText = place.output
            value.outputConflict = place.outputConflict
            if let engine = place.engine {
                guard let known = ResampleEngine(rawValue: engine) else { return nil }
                value.engine = known
            }
            found.append(value)
        }
        return ClipTask(
            clip: clip, clipSeconds: clipSeconds, places: found, minimumConfidence: minimumConfidence,
            residualLimitMs: residualLimitMs, quality: quality, mux: mux ?? false)
    }
}
