import DriftCore
import DriftPipeline
import DriftSchema
import DriftSync
import DriftWire
import Foundation

/// Runs a sound job where the files are: a file's print, or one clip's task (its places measured, the recording
/// chosen, the clip's audio cut). Every input is checked and pinned beneath the input roots and every output folder
/// beneath the output root, as for a repair, and used only through those descriptors; rows and messages name the
/// job's paths.
enum SoundJobRunner {
    static func run(
        _ job: JobSpec, sound: SoundJob, worker: String,
        failure: (String, FailureKind) -> JobResult, seconds: () -> Double
    ) -> JobResult {
        let roots = job.inputRoots ?? []
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        /// Pinned path → the job's path, to name files in what goes back.
        var shown: [String: String] = [:]
        func pinInput(_ path: String) -> Result<String, Refusal> {
            switch Confinement.check(input: path, roots: roots) {
            case .failure(let reason): return .failure(Refusal(message: "\(path): refused: \(reason)"))
            case .success(let real):
                switch PinnedPaths.pinInput(real, inputRoots: roots) {
                case .failure(let reason): return .failure(Refusal(message: "\(path): refused: \(reason)"))
                case .success(let descriptor):
                    descriptors.append(descriptor)
                    shown["/proc/self/fd/\(descriptor)"] = path
                    return .success("/proc/self/fd/\(descriptor)")
                }
            }
        }
        func named(_ text: String) -> String {
            // Longest first: /proc/self/fd/1 is a prefix of /proc/self/fd/12.
            shown.keys.sorted { $0.count > $1.count }.reduce(text) {
                $0.replacingOccurrences(of: $1, with: shown[$1] ?? $1)
            }
        }

        let input: String
        switch pinInput(job.input) {
        case .failure(let refusal): return failure(refusal.message, .refused)
        case .success(let path): input = path
        }
        guard var task = sound.clip else {
            do {
                let print = try ClipSync.print(of: input)
                // base64 in JSON: 4 bytes for 3, and the envelope.
                if let print, print.bytes.count / 3 * 4 + 4096 > WireCodec.maxMessageBytes {
                    return failure(
                        "\(job.input): \(Int(print.seconds / 3600)) hours of sound make a print larger than one message carries (\(WireCodec.maxMessageBytes >> 20) MiB)",
                        .other)
                }
                var result = JobResult(
                    id: job.id, attempt: job.attempt, worker: worker, succeeded: true, seconds: seconds())
                result.sound = SoundResult(print: print?.bytes, timecode: StartTimecode.seconds(of: input))
                return result
            } catch {
                return failure(named("\(error)"), FailureKind(of: error))
            }
        }

        task.clip = input
        if task.places.contains(where: { $0.output != nil }),
            case .failure(let reason) = Confinement.checkRoots(inputs: roots, output: job.outputRoot)
        {
            return failure("\(job.outputRoot): refused: \(reason)", .refused)
        }
        for p in task.places.indices {
            switch pinInput(task.places[p].recording) {
            case .failure(let refusal): return failure(refusal.message, .refused)
            case .success(let path): task.places[p].recording = path
            }
            guard let output = task.places[p].output else { continue }
            if case .failure(let reason) = Confinement.check(output: output, root: job.outputRoot) {
                return failure("\(output): refused: \(reason)", .refused)
            }
            switch PinnedPaths.folder(of: output, beneath: job.outputRoot) {
            case .failure(.input(let reason)), .failure(.output(let reason, false)):
                return failure("\(output): \(reason)", .refused)
            case .failure(.output(let reason, true)): return failure("\(output): \(reason)", .outputUnwritable)
            case .success(let folder):
                descriptors.append(folder)
                let pinned = "/proc/self/fd/\(folder)/\((output as NSString).lastPathComponent)"
                shown[pinned] = output
                task.places[p].output = pinned
            }
        }
        let rows = ClipSync.run(task).map { pinned in
            var row = pinned
            row.reference = job.input
            row.recording = named(row.recording)
            row.output = row.output.map(named)
            row.note = row.note.map(named)
            if let reason = row.content?.reason { row.content?.reason = named(reason) }
            return row
        }
        var result = JobResult(id: job.id, attempt: job.attempt, worker: worker, succeeded: true, seconds: seconds())
        result.sound = SoundResult(matches: rows)
        return result
    }

    private struct Refusal: Error {
        var message: String
    }
}
