/// What a job's output is made from: compared on the next night to decide whether an earlier output is still
/// current. The journal makes them (its `FileFingerprint` and plan digest) and keeps them with the job and its output.
public struct JobFingerprints: Codable, Sendable, Equatable {
    /// `FileFingerprint` of the recording (a clip for a clip's sync, the file for a print) and of the reference (for a
    /// clip's sync: a digest of the recordings that heard it).
    public var recording: String
    public var reference: String
    /// A digest of the plan (target frames, method, quality, engine, output path; a clip's places and settings): a
    /// change in any of them means the output is stale.
    public var plan: String

    public init(recording: String, reference: String, plan: String) {
        self.recording = recording
        self.reference = reference
        self.plan = plan
    }
}
