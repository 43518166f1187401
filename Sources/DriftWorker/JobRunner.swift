import DriftAudio
import DriftCore
import DriftPipeline
import DriftSupport
import DriftWire
import Foundation

/// Runs one job through the same chain as `driftfix process`: temporary file, exact-length verification by
/// reopening the output, rename into place, then a checksum of the file as written.
public enum JobRunner {
    /// Runs `job` (paths already mapped to this machine) and describes the outcome.
    public static func run(_ job: JobSpec, worker: String) -> JobResult {
        var result = execute(job, worker: worker)
        result.run = job.run
        return result
    }

    private static func execute(_ job: JobSpec, worker: String) -> JobResult {
        let clock = ContinuousClock.now
        func seconds() -> Double { (ContinuousClock.now - clock).seconds }
        func failure(_ message: String, retryable: Bool) -> JobResult {
            JobResult(id: job.id, attempt: job.attempt, worker: worker, succeeded: false, seconds: seconds(),
                      error: message, retryable: retryable)
        }
        if job.noop {
            return JobResult(id: job.id, attempt: job.attempt, worker: worker, succeeded: true, outputFrames: job.targetFrames,
                             seconds: 0)
        }
        if case .failure(let reason) = Confinement.checkRoots(inputs: job.inputRoots ?? [], output: job.outputRoot) {
            return failure("\(job.output): refused: \(reason)", retryable: false)
        }
        // Resolve and check first (clear reasons), then pin: the input file and the output folder are opened
        // beneath their roots by the kernel (openat2, RESOLVE_BENEATH) and used only through those descriptors.
        let input: String
        switch Confinement.check(input: job.input, roots: job.inputRoots ?? []) {
        case .failure(let reason): return failure("\(job.input): refused: \(reason)", retryable: false)
        case .success(let resolved): input = resolved
        }
        let output: String
        switch Confinement.check(output: job.output, root: job.outputRoot) {
        case .failure(let reason): return failure("\(job.output): \(reason)", retryable: false)
        case .success(let resolved): output = resolved
        }
        let pinned: PinnedPaths
        switch PinnedPaths.pin(input: input, inputRoots: job.inputRoots ?? [], output: output, outputRoot: job.outputRoot) {
        case .failure(.input(let reason)): return failure("\(job.input): refused: \(reason)", retryable: false)
        case .failure(.output(let reason, let retryable)): return failure("\(job.output): \(reason)", retryable: retryable)
        case .success(let paths): pinned = paths
        }
        defer { pinned.close() }
        // Messages name the job's paths, not the descriptors.
        func shown(_ message: String) -> String { pinned.describe(message, input: job.input, output: job.output) }
        let request = ProcessRequest(
            input: pinned.inputPath, output: pinned.outputPath, target: .frames(job.targetFrames),
            method: MethodChoice(method: job.method, reason: job.methodReason), quality: job.quality)
        do {
            let result = try FileProcessor.run(request)
            let checksum = pinned.outputChecksum()
            return JobResult(id: job.id, attempt: job.attempt, worker: worker, succeeded: true,
                             outputFrames: result.outputFrames, checksum: checksum, seconds: seconds())
        } catch let error as AudioError {
            // The destination may recover (space freed, another worker's disk); a bad input never will.
            let retryable: Bool
            switch error.cause {
            case .diskFull, .writeFailed, .destinationNotWritable, .destinationMissing: retryable = true
            default: retryable = false
            }
            return failure(shown(error.description), retryable: retryable)
        } catch {
            return failure(shown("\(error)"), retryable: false)
        }
    }
}

/// Keeps a job's writes inside the output root.
public enum Confinement {
    /// Checks that the output lies below `root` with no `..`, and that the nearest existing folder on its way
    /// resolves inside the root (links cannot lead out). Missing folders are created later, beneath the root, by
    /// `PinnedPaths`.
    public static func check(output: String, root: String) -> Result<String, ConfinementError> {
        guard output.hasPrefix("/"), !output.split(separator: "/").contains("..") else {
            return .failure(ConfinementError("path must be absolute and free of '..'"))
        }
        guard let realRoot = realPath(root) else { return .failure(ConfinementError("output root \(root) does not exist")) }
        var existing = (output as NSString).deletingLastPathComponent
        while realPath(existing) == nil && existing != "/" { existing = (existing as NSString).deletingLastPathComponent }
        guard let resolved = realPath(existing), inside(resolved, realRoot) else {
            return .failure(ConfinementError("outside the output root \(root)"))
        }
        return .success(output)
    }

    /// Resolves links and `..` in the input and checks that it lies inside one of `roots` (resolved too). Returns
    /// the resolved path.
    public static func check(input: String, roots: [String]) -> Result<String, ConfinementError> {
        guard !roots.isEmpty else { return .failure(ConfinementError("no input roots are configured; nothing may be read")) }
        guard input.hasPrefix("/") else { return .failure(ConfinementError("path must be absolute")) }
        guard let resolved = realPath(input) else {
            return .failure(ConfinementError("cannot be resolved (\(String(cString: strerror(errno))))"))
        }
        for root in roots {
            guard let realRoot = realPath(root) else { continue }
            if resolved != realRoot && inside(resolved, realRoot) { return .success(resolved) }
        }
        let shown = resolved == input ? "" : " (it resolves to \(resolved))"
        return .failure(ConfinementError("outside the input roots \(roots.joined(separator: ", "))\(shown)"))
    }

    /// The output root must not overlap an input root (either inside the other): a job could then write over a
    /// recording.
    public static func checkRoots(inputs: [String], output: String) -> Result<Void, ConfinementError> {
        guard let realOutput = realPath(output) else { return .success(()) }  // reported by check(output:)
        for root in inputs {
            guard let realInput = realPath(root) else { continue }
            if inside(realOutput, realInput) || inside(realInput, realOutput) {
                return .failure(ConfinementError("the output root \(output) overlaps the input root \(root)"))
            }
        }
        return .success(())
    }

    /// Whether `path` is `root` or below it (both resolved).
    static func inside(_ path: String, _ root: String) -> Bool {
        path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

public struct ConfinementError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// FNV-1a 64 of a file's bytes, read in 1 MiB blocks.
public enum Checksum {
    public static func fnv1a64(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        return fnv1a64(handle)
    }

    /// The checksum of an open file (the descriptor is closed).
    static func fnv1a64(descriptor: Int32) -> String? {
        fnv1a64(FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    private static func fnv1a64(_ handle: FileHandle) -> String? {
        defer { try? handle.close() }
        var hash = FNV1a64()
        while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
            data.withUnsafeBytes { hash.update($0) }
        }
        return hash.hex
    }
}
