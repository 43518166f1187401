import DriftCore

// The report's JSON keeps every column on every row, with null where a value is unknown (a pair that failed to
// probe has `driftPPM: null` and its `error`), so scripts can rely on the keys being there.
extension PairReport {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case recording, reference, folder, sampleRate, channels, format, recordingFrames, recordingSeconds
        case referenceSeconds, referenceDuration, referenceSource, driftSeconds, driftPPM, endOffsetMs, sync, flags
        case cause, causeDetail, action, method, methodReason, targetFrames, error
        case outcome, output, outputFrames, checksum, attempts, worker, processingSeconds
        case warnings, measuredBy, operations, content, contentNote
        // Added with device identity: last, so positional readers of the CSV keep their columns.
        case device, deviceSource
        // Added with pairing by sound.
        case pairedBy, recordingStartSeconds, recordingEndSeconds
        // Added with failure kinds.
        case failure
        // Added with the recorders' chunks.
        case slate
        // Added with one status per sound-paired place (report version 2).
        case place, repeats, fit, decidedBy
        // Added with the figures of the best measurement (report version 3).
        case startOffsetMs, worstOffsetMs, worstAtSeconds, lengths
    }

    /// The report columns, in order: JSON keys of a row and the CSV header.
    public static let columnNames = CodingKeys.allCases.map(\.rawValue)

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(recordingText, forKey: .recording)
        try c.encode(referenceText, forKey: .reference)
        try c.encode(folderText, forKey: .folder)
        try c.encode(device, forKey: .device)
        try c.encode(deviceSource, forKey: .deviceSource)
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
        try c.encode(outputText, forKey: .output)
        try c.encode(outputFrames, forKey: .outputFrames)
        try c.encode(checksum, forKey: .checksum)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(worker, forKey: .worker)
        try c.encode(processingSeconds, forKey: .processingSeconds)
        try c.encode(warnings, forKey: .warnings)
        try c.encode(measuredBy, forKey: .measuredBy)
        try c.encode(operations, forKey: .operations)
        try c.encode(content, forKey: .content)
        try c.encode(contentNote, forKey: .contentNote)
        try c.encode(pairedBy, forKey: .pairedBy)
        try c.encode(recordingStartSeconds, forKey: .recordingStartSeconds)
        try c.encode(recordingEndSeconds, forKey: .recordingEndSeconds)
        try c.encode(failure, forKey: .failure)
        try c.encode(slate, forKey: .slate)
        try c.encode(soundPlace?.place, forKey: .place)
        try c.encode(soundPlace?.repeats, forKey: .repeats)
        try c.encode(soundPlace?.fit, forKey: .fit)
        try c.encode(soundPlace?.decidedBy, forKey: .decidedBy)
        try c.encode(startOffsetMs, forKey: .startOffsetMs)
        try c.encode(worstOffsetMs, forKey: .worstOffsetMs)
        try c.encode(worstAtSeconds, forKey: .worstAtSeconds)
        try c.encode(lengths, forKey: .lengths)
    }

    // Reports stored in a journal by an earlier release lack the newer keys: they decode with empty values.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        recordingText = try c.decode(String.self, forKey: .recording)
        referenceText = try c.decode(String.self, forKey: .reference)
        folderText = try c.decode(String.self, forKey: .folder)
        device = try c.decodeIfPresent(String.self, forKey: .device) ?? PairReport.folderDevice(folderText)
        deviceSource = try c.decodeIfPresent(String.self, forKey: .deviceSource) ?? "folder"
        sampleRate = try c.decodeIfPresent(Int.self, forKey: .sampleRate)
        channels = try c.decodeIfPresent(Int.self, forKey: .channels)
        format = try c.decodeIfPresent(String.self, forKey: .format)
        recordingFrames = try c.decodeIfPresent(Int64.self, forKey: .recordingFrames)
        recordingSeconds = try c.decodeIfPresent(Double.self, forKey: .recordingSeconds)
        referenceSeconds = try c.decodeIfPresent(Double.self, forKey: .referenceSeconds)
        referenceDuration = try c.decodeIfPresent(String.self, forKey: .referenceDuration)
        referenceSource = try c.decodeIfPresent(String.self, forKey: .referenceSource)
        driftSeconds = try c.decodeIfPresent(Double.self, forKey: .driftSeconds)
        driftPPM = try c.decodeIfPresent(Double.self, forKey: .driftPPM)
        endOffsetMs = try c.decodeIfPresent(Double.self, forKey: .endOffsetMs)
        sync = try c.decodeIfPresent(String.self, forKey: .sync)
        flags = try c.decodeIfPresent([SyncFlag].self, forKey: .flags) ?? []
        cause = try c.decodeIfPresent(DriftCause.self, forKey: .cause)
        causeDetail = try c.decodeIfPresent(String.self, forKey: .causeDetail)
        action = try c.decode(PlanAction.self, forKey: .action)
        method = try c.decodeIfPresent(RepairMethod.self, forKey: .method)
        methodReason = try c.decodeIfPresent(String.self, forKey: .methodReason)
        targetFrames = try c.decodeIfPresent(Int64.self, forKey: .targetFrames)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        outcome = try c.decodeIfPresent(RepairOutcome.self, forKey: .outcome)
        outputText = try c.decodeIfPresent(String.self, forKey: .output)
        outputFrames = try c.decodeIfPresent(Int64.self, forKey: .outputFrames)
        checksum = try c.decodeIfPresent(String.self, forKey: .checksum)
        attempts = try c.decodeIfPresent(Int.self, forKey: .attempts)
        worker = try c.decodeIfPresent(String.self, forKey: .worker)
        processingSeconds = try c.decodeIfPresent(Double.self, forKey: .processingSeconds)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        measuredBy = try c.decodeIfPresent(PlanMeasurement.self, forKey: .measuredBy) ?? .headers
        operations = try c.decodeIfPresent([RepairOperation].self, forKey: .operations) ?? []
        content = try c.decodeIfPresent(ContentMeasurement.self, forKey: .content)
        contentNote = try c.decodeIfPresent(String.self, forKey: .contentNote)
        pairedBy = try c.decodeIfPresent(String.self, forKey: .pairedBy)
        recordingStartSeconds = try c.decodeIfPresent(Double.self, forKey: .recordingStartSeconds)
        recordingEndSeconds = try c.decodeIfPresent(Double.self, forKey: .recordingEndSeconds)
        failure = try c.decodeIfPresent(FailureKind.self, forKey: .failure)
        slate = try c.decodeIfPresent(Slate.self, forKey: .slate)
        startOffsetMs = try c.decodeIfPresent(Double.self, forKey: .startOffsetMs)
        worstOffsetMs = try c.decodeIfPresent(Double.self, forKey: .worstOffsetMs)
        worstAtSeconds = try c.decodeIfPresent(Double.self, forKey: .worstAtSeconds)
        lengthDifferenceSeconds = try c.decodeIfPresent(PairLengths.self, forKey: .lengths)?.differenceSeconds
        if let place = try c.decodeIfPresent(SoundPairingReport.Match.Status.self, forKey: .place) {
            soundPlace = SoundPlace(
                place: place, repeats: try c.decodeIfPresent(Bool.self, forKey: .repeats),
                fit: try c.decodeIfPresent(Double.self, forKey: .fit),
                decidedBy: try c.decodeIfPresent(String.self, forKey: .decidedBy))
        }
    }
}

extension ScanSummary {
    enum CodingKeys: String, CodingKey {
        case pairs, measured, inSync, needRepair, refused, errors, unpaired, skipped, warned, totalAudioSeconds
        case worstDriftPPM
        case worstDriftRecordingText = "worstDriftRecording"
        case flagged, outcomes
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pairs = try c.decode(Int.self, forKey: .pairs)
        measured = try c.decode(Int.self, forKey: .measured)
        inSync = try c.decode(Int.self, forKey: .inSync)
        needRepair = try c.decode(Int.self, forKey: .needRepair)
        refused = try c.decode(Int.self, forKey: .refused)
        errors = try c.decode(Int.self, forKey: .errors)
        unpaired = try c.decode(Int.self, forKey: .unpaired)
        skipped = try c.decodeIfPresent(Int.self, forKey: .skipped) ?? 0
        warned = try c.decodeIfPresent(Int.self, forKey: .warned) ?? 0
        totalAudioSeconds = try c.decode(Double.self, forKey: .totalAudioSeconds)
        worstDriftPPM = try c.decodeIfPresent(Double.self, forKey: .worstDriftPPM)
        worstDriftRecordingText = try c.decodeIfPresent(String.self, forKey: .worstDriftRecordingText)
        flagged = try c.decode(Int.self, forKey: .flagged)
        outcomes = try c.decodeIfPresent([RepairOutcome: Int].self, forKey: .outcomes) ?? [:]
    }
}

extension ScanReport {
    enum CodingKeys: String, CodingKey {
        case version, generated
        case rootTexts = "roots"
        case summary, devices, pairs, unpaired, errors, skipped, history, disruptions
        case leftForAPerson
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
        generated = try c.decode(String.self, forKey: .generated)
        rootTexts = try c.decode([String].self, forKey: .rootTexts)
        summary = try c.decode(ScanSummary.self, forKey: .summary)
        pairs = try c.decode([PairReport].self, forKey: .pairs)
        unpaired = try c.decode([UnpairedFile].self, forKey: .unpaired)
        errors = try c.decode([ScanIssue].self, forKey: .errors)
        skipped = try c.decodeIfPresent([SkippedPath].self, forKey: .skipped) ?? []
        history = try c.decodeIfPresent(DriftHistory.self, forKey: .history)
        disruptions = try c.decodeIfPresent(RunDisruptions.self, forKey: .disruptions)
        devices = try c.decodeIfPresent([DeviceSummary].self, forKey: .devices)
        leftForAPerson = try c.decodeIfPresent([SoundPairingReport.LeftClip].self, forKey: .leftForAPerson)
    }
}
