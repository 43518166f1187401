// The report's JSON keeps every column on every row, with null where a value is unknown (a pair that failed to
// probe has `driftPPM: null` and its `error`), so scripts can rely on the keys being there.
extension PairReport {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case recording, reference, folder, sampleRate, channels, format, recordingFrames, recordingSeconds
        case referenceSeconds, referenceDuration, referenceSource, driftSeconds, driftPPM, endOffsetMs, sync, flags
        case cause, causeDetail, action, method, methodReason, targetFrames, error
        case outcome, output, outputFrames, checksum, attempts, worker, processingSeconds
    }

    /// The report columns, in order: JSON keys of a row and the CSV header.
    public static let columnNames = CodingKeys.allCases.map(\.rawValue)

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(recording, forKey: .recording)
        try c.encode(reference, forKey: .reference)
        try c.encode(folder, forKey: .folder)
        try c.encode(sampleRate, forKey: .sampleRate)
        try c.encode(channels, forKey: .channels)
        try c.encode(format, forKey: .format)
        try c.encode(recordingFrames, forKey: .recordingFrames)
        try c.encode(recordingSeconds, forKey: .recordingSeconds)
        try c.encode(referenceSeconds, forKey: .referenceSeconds)
        try c.encode(referenceDuration, forKey: .referenceDuration)
        try c.encode(referenceSource, forKey: .referenceSource)
        try c.encode(driftSeconds, forKey: .driftSeconds)
        try c.encode(driftPPM, forKey: .driftPPM)
        try c.encode(endOffsetMs, forKey: .endOffsetMs)
        try c.encode(sync, forKey: .sync)
        try c.encode(flags, forKey: .flags)
        try c.encode(cause, forKey: .cause)
        try c.encode(causeDetail, forKey: .causeDetail)
        try c.encode(action, forKey: .action)
        try c.encode(method, forKey: .method)
        try c.encode(methodReason, forKey: .methodReason)
        try c.encode(targetFrames, forKey: .targetFrames)
        try c.encode(error, forKey: .error)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(output, forKey: .output)
        try c.encode(outputFrames, forKey: .outputFrames)
        try c.encode(checksum, forKey: .checksum)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(worker, forKey: .worker)
        try c.encode(processingSeconds, forKey: .processingSeconds)
    }
}
