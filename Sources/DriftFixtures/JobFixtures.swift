import DriftJobs
import DriftWire

extension JobRecord {
    /// A header repair of `/m/<id>.wav` into `/o`, to 48,000 frames, for tests and benchmarks of the queue, the
    /// dispatcher and the Slurm pool, which never open the files.
    public static func headerRepair(id: Int, audioSeconds: Double = 60) -> JobRecord {
        JobRecord(
            id: id, input: "/m/\(id).wav",
            work: .header(
                HeaderRepair(
                    output: "/o/\(id).wav", targetFrames: 48_000, method: .resample, methodReason: "default",
                    quality: .medium)),
            outputRoot: "/o", inputRoots: nil, audioSeconds: audioSeconds)
    }
}
