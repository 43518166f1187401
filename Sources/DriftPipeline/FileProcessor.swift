import DriftAudio
import DriftCore
import DriftDSP
import Foundation

/// What to do with one file: the repair `driftfix process` runs and a worker runs for each job.
public struct ProcessRequest: Sendable {
    public var input: String
    public var output: String
    public var target: TargetLength
    public var quality: ResampleQuality
    /// Frames per block moved through the chain; memory use is proportional to it, not to the file.
    public var blockFrames: Int

    public init(
        input: String, output: String, target: TargetLength, quality: ResampleQuality = .default,
        blockFrames: Int = 8192
    ) {
        self.input = input
        self.output = output
        self.target = target
        self.quality = quality
        self.blockFrames = blockFrames
    }
}

/// What a finished repair produced, as verified by reopening the output.
public struct ProcessResult: Sendable {
    public let input: String
    public let output: String
    public let inputFormat: AudioFormat
    public let outputFormat: AudioFormat
    public let inputFrames: Int64
    /// Frames in the written file, read back from it.
    public let outputFrames: Int64
    /// "resample (medium)" or "copy" when the length already matched.
    public let method: String
    /// Metadata the output container could not hold.
    public let droppedMetadata: [String]
    public let seconds: Double

    /// Output length / input length.
    public var ratio: Double { Double(outputFrames) / Double(inputFrames) }
}

/// A failure of one file's repair: one line naming the file and the cause.
public struct ProcessError: Error, CustomStringConvertible {
    public let path: String
    public let cause: String

    public init(path: String, cause: String) {
        self.path = path
        self.cause = cause
    }

    public var description: String { "\(path): \(cause)" }
}

/// Runs one repair: read, convert, write to a temporary file, verify by reopening, rename into place.
///
/// The input is only ever opened for reading; the output appears under its final name only after it verified.
public enum FileProcessor {
    /// Repairs `request.input` into `request.output`.
    ///
    /// - Parameter progress: called after each block with (output frames written, output frames in all).
    /// - Throws: `AudioError`, `ProcessError` or `DSPError`, each naming the file and the cause.
    public static func run(
        _ request: ProcessRequest, progress: ((Int64, Int64) -> Void)? = nil
    ) throws -> ProcessResult {
        let clock = ContinuousClock.now
        let reader = try AudioFileReader(path: request.input)
        let targetFrames: Int64
        do {
            targetFrames = try request.target.resolve(
                inputFrames: reader.frameCount, sampleRate: reader.format.sampleRate)
        } catch {
            throw ProcessError(path: request.input, cause: error.description)
        }
        let staged = try StagedOutput(destination: request.output, protecting: request.input)
        let outputFormat = reader.format.forWriting(frames: targetFrames)
        let resampling = targetFrames != reader.frameCount
        let method = resampling ? "resample (\(request.quality.rawValue))" : "copy"
        let metadata = reader.metadata().adapted(
            inputRate: reader.format.sampleRate, outputRate: outputFormat.sampleRate,
            history: codingHistory(format: outputFormat, method: method, from: reader.frameCount, to: targetFrames))

        let input = PrefetchingSource(reader, blockFrames: request.blockFrames)
        let source: AudioSource = resampling
            ? try ExactLengthResampler(
                upstream: input, targetFrames: targetFrames, quality: request.quality,
                blockFrames: request.blockFrames)
            : input
        let writer = try AudioFileWriter(
            path: staged.temporaryPath, displayPath: request.output, format: outputFormat, metadata: metadata)
        try pump(source, into: writer, blockFrames: request.blockFrames, progress: progress)
        try writer.close()

        let verification = try AudioFileVerifier.verify(
            path: staged.temporaryPath, expectedFrames: targetFrames, expectedFormat: outputFormat)
        guard verification.passed else {
            throw ProcessError(
                path: request.output,
                cause: "verification failed: " + verification.mismatches.joined(separator: "; "))
        }
        try staged.commit()
        return ProcessResult(
            input: request.input, output: request.output, inputFormat: reader.format, outputFormat: outputFormat,
            inputFrames: reader.frameCount, outputFrames: verification.foundFrames, method: method,
            droppedMetadata: writer.droppedMetadata,
            seconds: (ContinuousClock.now - clock).seconds)
    }

    /// Moves blocks from `source` to `writer` until the source ends, writing on a thread of its own so the
    /// encoder overlaps the conversion; checks the source kept its promised length.
    static func pump(
        _ source: AudioSource, into writer: AudioFileWriter, blockFrames: Int, progress: ((Int64, Int64) -> Void)?
    ) throws {
        let depth = 3
        let free = BlockQueue<AudioBlock>(capacity: depth)
        let full = BlockQueue<AudioBlock>(capacity: depth)
        for _ in 0..<depth { free.push(AudioBlock(frames: blockFrames, channels: source.channelCount)) }
        let outcome = WriteOutcome()
        let done = DispatchSemaphore(value: 0)
        let job = Handover(value: writer)
        let thread = Thread {
            defer { done.signal() }
            while let block = full.pop() {
                do {
                    try job.value.write(block.samples, frames: block.frames)
                } catch {
                    outcome.record(error)
                    free.close()
                    full.close()
                    return
                }
                free.push(block)
            }
        }
        thread.name = "driftfix-write"
        thread.start()

        var delivered: Int64 = 0
        var failure: (any Error)?
        while let block = free.pop() {
            do {
                block.frames = try source.read(into: block.samples, frames: block.capacity)
            } catch {
                failure = error
                break
            }
            if block.frames == 0 { break }
            delivered += Int64(block.frames)
            guard full.push(block) else { break }
            progress?(delivered, source.frameCount)
        }
        full.close()
        done.wait()
        if let error = outcome.error ?? failure { throw error }
        guard writer.framesWritten == source.frameCount else {
            throw ProcessError(
                path: writer.displayPath,
                cause: "processing chain delivered \(writer.framesWritten) of \(source.frameCount) frames")
        }
    }

    /// One EBU Tech 3285 coding-history line describing this step.
    static func codingHistory(format: AudioFormat, method: String, from input: Int64, to output: Int64) -> String {
        let width = format.encoding.bytesPerSample.map { "W=\($0 * 8)," } ?? ""
        let mode = format.channelCount == 1 ? "mono" : format.channelCount == 2 ? "stereo" : "multitrack"
        return "A=PCM,F=\(format.sampleRate),\(width)M=\(mode),T=driftfix \(method) \(input) to \(output) frames"
    }
}

/// The first error the write thread met, read by the pumping thread after it joined.
private final class WriteOutcome: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var stored: (any Error)?

    var error: (any Error)? { lock.withLock { stored } }

    func record(_ error: any Error) {
        lock.withLock { if stored == nil { stored = error } }
    }
}

extension Duration {
    /// The duration in seconds as a Double, for reporting.
    public var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
