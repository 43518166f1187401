import DriftAV
import DriftAudio
import DriftCore
import DriftDSP
import DriftSupport
import Foundation
import Synchronization
import Tracing

public import struct SystemPackage.FilePath

/// What to do with one file: the repair `driftfix process` runs and a worker runs for each job.
public struct ProcessRequest: Sendable {
    /// The file to repair (only ever read).
    public var input: FilePath {
        get { FilePath(pathText: inputText) }
        set { inputText = newValue.pathText }
    }
    /// Where the repaired file goes (written to a temporary name, verified, then renamed).
    public var output: FilePath {
        get { FilePath(pathText: outputText) }
        set { outputText = newValue.pathText }
    }
    /// `input` and `output` as the engine carries them (`PathText`).
    package var inputText: String
    package var outputText: String
    /// The output length; nil keeps the (trimmed) duration.
    public var target: TargetLength?
    /// A tempo factor (2 plays twice as fast): always a pitch-preserving stretch.
    public var tempo: Rational?
    /// How a length change is made, and why.
    public var method: MethodChoice
    public var quality: ResampleQuality
    /// The resampling library (libsamplerate unless asked otherwise).
    public var engine: ResampleEngine = .default
    /// The pitch-preserving stretch's engine, or `auto` (chosen by the ratio and the sound).
    public var stretch: StretchChoice = .default
    /// Threads a long resample may use (`SegmentedResampler`): `process` gives every core; a worker gives every core
    /// too, with `borrowCore` lending the threads beyond the first only cores no other job uses.
    public var threads = 1
    /// Whether a long AAC output is encoded in segments on `threads` threads (`SegmentedAudioEncoder`): faster, at a
    /// measured cost in SNR (FFmpeg's encoder settles its rate over minutes; each segment starts it afresh).
    public var parallelEncode = false
    /// When set, a long resample's threads beyond the first convert a chunk only on a core this lends (the token
    /// gives it back when released), e.g. `CoreSlots.borrowIdle`.
    public var borrowCore: (@Sendable () -> AnyObject?)?
    public var edits: EditOperations
    /// Frames per block moved through the chain; memory use is proportional to it, not to the file.
    public var blockFrames: Int
    /// What may already be at `output`: nothing (`process` without `--overwrite`), or a regular file to replace.
    public var replacing: StagedOutput.Replacement
    /// The kind of file to write (OUT's extension, or `--format`); nil keeps the input's container.
    public var outputType: FileType?
    /// The sample encoding to write (`--encoding`); nil keeps the input's wherever the container holds it.
    public var outputEncoding: SampleEncoding?
    /// The audio stream of a media file to repair (its index in the file); nil takes the first audio stream.
    public var audioStream: Int?
    /// A content repair's operations (start offset, dropouts, rate), in order; when given, they replace `target`,
    /// `tempo`, `method` and `edits`.
    public var operations: [RepairOperation] = []
    /// A last check of the written and verified temporary file (its path), before it is renamed into place: throwing
    /// discards it (a content repair's sync proof).
    package var beforeCommit: (@Sendable (String) throws -> Void)?
    /// Write the output as a copy of this media file with the repaired audio in place of its audio stream (a clip
    /// given the recorder's audio); `outputType` and `outputEncoding` do not apply.
    public var muxInto: MuxTarget?
    /// The output is a cut of part of the input (a clip's audio from a longer recording): the input's marks outside
    /// it are left out, and its iXML names the input as its parent under a FILE_UID of its own. Otherwise the output
    /// is the input repaired, and a mark in a trimmed part is kept at the nearest end.
    public var isCut = false
    /// The time of day of the output's first sample, seconds since midnight, where the caller knows it better than
    /// the input's own time stamps (a cut placed at its clip's start timecode); nil moves the input's by the trim.
    public var startTime: Rational?
    /// The input's name for the output's metadata (iXML HISTORY) where `input` is not the name a person knows (a
    /// worker reads a pinned `/proc/self/fd/N`); nil takes `input`'s last component.
    public var inputName: String?

    public init(
        input: FilePath, output: FilePath, target: TargetLength?, tempo: Rational? = nil,
        method: MethodChoice = MethodChoice(method: .resample, reason: "default"), quality: ResampleQuality = .default,
        edits: EditOperations = EditOperations(), blockFrames: Int = 8192,
        replacing: StagedOutput.Replacement = .regularFile, outputType: FileType? = nil,
        outputEncoding: SampleEncoding? = nil
    ) {
        self.init(
            input: input.pathText, output: output.pathText, target: target, tempo: tempo, method: method,
            quality: quality, edits: edits, blockFrames: blockFrames, replacing: replacing, outputType: outputType,
            outputEncoding: outputEncoding)
    }

    /// The same, for files named by their `PathText` (how jobs and the journal carry them).
    package init(
        input: String, output: String, target: TargetLength?, tempo: Rational? = nil,
        method: MethodChoice = MethodChoice(method: .resample, reason: "default"), quality: ResampleQuality = .default,
        edits: EditOperations = EditOperations(), blockFrames: Int = 8192,
        replacing: StagedOutput.Replacement = .regularFile, outputType: FileType? = nil,
        outputEncoding: SampleEncoding? = nil
    ) {
        inputText = input
        outputText = output
        self.target = target
        self.tempo = tempo
        self.method = method
        self.quality = quality
        self.edits = edits
        self.blockFrames = blockFrames
        self.replacing = replacing
        self.outputType = outputType
        self.outputEncoding = outputEncoding
    }
}

/// A file's format in words, with what the summary line computes from.
public struct FormatSummary: Sendable, CustomStringConvertible {
    /// The container's name: `WAV`, `FLAC`, `MP4/MOV`, `Matroska`...
    public let container: String
    public let sampleRate: Int
    /// The whole format: "WAV 24-bit 48000 Hz stereo", "MP4/MOV aac 128 kb/s 48000 Hz stereo"...
    public let description: String
}

extension FormatSummary {
    init(_ format: AudioFormat) {
        self.init(container: "\(format.container)", sampleRate: format.sampleRate, description: "\(format)")
    }
}

/// What a finished repair produced, as verified by reopening the output.
public struct ProcessResult: Sendable {
    /// The file repaired.
    public var input: FilePath { FilePath(pathText: inputText) }
    /// The repaired file, verified and in place.
    public var output: FilePath { FilePath(pathText: outputText) }
    /// `input` and `output` as the engine carries them (`PathText`).
    package let inputText: String
    package let outputText: String
    public let inputFormat: FormatSummary
    public let outputFormat: FormatSummary
    public let inputFrames: Int64
    /// Input frames the output was made from (after trim).
    public let usedInputFrames: Int64
    /// Frames in the written file, read back from it.
    public let outputFrames: Int64
    /// The steps that ran, e.g. "resample (default)" or "trim 0..<48000, stretch (--tempo), fade-out ...".
    public let method: String
    /// Which method changed the length and why; nil when the length was kept.
    public let methodChoice: MethodChoice?
    /// Metadata the output container could not hold.
    public let droppedMetadata: [String]
    /// How the output's format differs from the input's, and why (a container that cannot hold the encoding, a
    /// lossy re-encode, a stream the container cannot hold...).
    public let formatNotes: [String]
    /// What of the input's metadata could not stay as it was: a chunk left out and why, a marker moved off its sound
    /// (in a trimmed part, at a re-inserted dropout).
    public var metadataNotes: [String] = []
    /// What the repair took, its verification included.
    public let elapsed: Duration
    /// Where a long resample was split: chunks in all, and how many of them threads beyond the first converted.
    public var split: (chunks: Int, byHelpers: Int)? = nil

    /// Output length / input length.
    public var ratio: Double { Double(outputFrames) / Double(inputFrames) }

    /// What QA should know of the output's metadata, one line each: what its type cannot hold, what could not stay as
    /// it was (a chunk left out, a marker moved off its sound).
    public var warnings: [String] {
        droppedMetadata.map { "\(outputFormat.container) cannot hold \($0): not carried" } + metadataNotes
    }
}

/// Runs one repair: read, convert, write to a temporary file, verify by reopening, rename into place.
///
/// The input is only ever opened for reading; the output appears under its final name only after it verified.
public enum FileProcessor {
    /// Repairs `request.inputText` into `request.outputText`.
    ///
    /// - Parameter progress: called after each block with (output frames written, output frames in all).
    /// - Throws: `AudioError`, `ProcessError` or `DSPError`, each naming the file and the cause.
    @discardableResult
    public static func run(
        _ request: ProcessRequest, progress: ((Int64, Int64) throws -> Void)? = nil
    ) throws -> ProcessResult {
        if AudioInput.library(for: request.inputText) == .ffmpeg {
            return try MediaRepair.run(request, progress: progress)
        }
        let clock = ContinuousClock.now
        let (reader, plan) = try probe(request)
        if let target = request.muxInto {
            let method = plan.summary + (plan.length == .none ? "" : qualityNote(plan, request))
            return try MediaMux.write(
                { try chain(plan, reader: reader, request: request, segmenting: false) },
                channels: reader.format.channelCount, plan: plan,
                request: request, into: target, input: (FormatSummary(reader.format), reader.frameCount),
                method: method, started: clock, bitsPerSample: MediaMux.bits(of: reader.format.encoding))
        }
        let choice = try OutputFormatChoice(
            input: reader.format, type: request.outputType, encoding: request.outputEncoding, path: request.outputText)
        var outputFormat = choice.format
        outputFormat.sampleRate = plan.outputRate
        var recorded = reader.metadata()
        recorded.chunks = reader.recordingChunks()
        outputFormat = outputFormat.forWriting(
            frames: plan.targetFrames, metadataBytes: recorded.chunks?.chunks.reduce(0) { $0 + $1.size + 9 } ?? 0)
        let method = plan.summary + (plan.length == .none ? "" : qualityNote(plan, request))
        let retiming = ChunkRetiming(
            map: plan.frameMap, isCut: request.isCut, inputRate: plan.inputRate, outputRate: plan.outputRate,
            start: request.startTime.map { .timeOfDay($0) }
                ?? .recordingPosition(plan.reverse ? 0 : plan.range.lowerBound - plan.leadingSilence),
            history: codingHistory(
                format: outputFormat, method: method, from: reader.frameCount, to: plan.targetFrames),
            sourceName: request.inputName ?? (request.inputText as NSString).lastPathComponent,
            bitDepth: outputFormat.encoding.bytesPerSample == reader.format.encoding.bytesPerSample
                ? nil : outputFormat.encoding.bytesPerSample.map { $0 * 8 })
        let (metadata, notes) = recorded.retimed(retiming)
        var metadataNotes = notes

        var segments: SegmentedResampler?
        // A stretch keeps where it put its sound: markers go there once it has run.
        let stretched: TimeStretcher.Record? =
            if case .stretch = plan.length, metadata.chunks != nil { TimeStretcher.Record() } else { nil }
        let (writer, verification) = try VerifiedOutput.write(
            for: request, progress: progress,
            source: {
                segments = segmented(plan, reader: reader, request: request)
                return try segments.map { faded($0, plan) }
                    ?? chain(plan, reader: reader, request: request, segmenting: false, stretched: stretched)
            },
            open: { staged in try AudioFileWriter(staged: staged, format: outputFormat, metadata: metadata) },
            beforeClose: { writer in
                guard let map = stretched?.map, let chunks = recorded.chunks else { return }
                var refined = retiming
                refined.map.stretch = map
                for id in writer.rewriteChunks(chunks.retimed(refined).chunks) {
                    metadataNotes.append(
                        "\(id.trimmingCharacters(in: .whitespaces)): its marks where the stretch's even time map puts "
                            + "them, within a few milliseconds of their sound (written where it stood, it would change size)"
                    )
                }
            },
            check: { _, written in
                try AudioFileVerifier.verify(
                    path: written, expectedFrames: plan.targetFrames, expectedFormat: outputFormat)
            })
        return ProcessResult(
            inputText: request.inputText, outputText: request.outputText, inputFormat: FormatSummary(reader.format),
            outputFormat: FormatSummary(outputFormat),
            inputFrames: reader.frameCount, usedInputFrames: Int64(plan.range.count),
            outputFrames: verification.foundFrames, method: method,
            methodChoice: plan.method, droppedMetadata: writer.droppedMetadata, formatNotes: choice.notes,
            metadataNotes: metadataNotes, elapsed: ContinuousClock.now - clock,
            split: segments.map { ($0.chunkCount, $0.helperChunks) })
    }

    /// The input opened and the repair planned from what it holds (a span of its own).
    private static func probe(_ request: ProcessRequest) throws -> (AudioFileReader, ProcessingPlan) {
        try withSpan("probe") { _ in
            let reader = try AudioFileReader(path: request.inputText)
            do {
                let plan = try ProcessingPlan(
                    request: request, inputFrames: reader.frameCount, sampleRate: reader.format.sampleRate)
                return (reader, try plan.choosingStretchEngine(request.stretch, reader: reader))
            } catch let error as PlanError {
                throw ProcessError(path: request.inputText, plan: error)
            }
        }
    }

    /// Builds the stages in their fixed order: trim/reverse → read-ahead → length → rate → fades.
    /// - Parameter stretched: where a stretch keeps where it put its sound.
    static func chain(
        _ plan: ProcessingPlan, reader: SeekableAudioSource, request: ProcessRequest,
        segmenting: Bool = true, stretched: TimeStretcher.Record? = nil
    ) throws -> AudioSource {
        if segmenting, let segmented = segmented(plan, reader: reader, request: request) {
            return faded(segmented, plan)
        }
        var source: AudioSource = reader
        if plan.reverse {
            source = ReversedSource(reader, range: plan.range)
        } else if plan.range != 0..<reader.frameCount {
            source = TrimmedSource(reader, range: plan.range)
        }
        // Reading ahead on a thread of its own pays only where another core can run it.
        if overlapsIO { source = PrefetchingSource(source, blockFrames: request.blockFrames) }
        if plan.leadingSilence > 0 { source = SilencePadding(source, frames: plan.leadingSilence, side: .leading) }
        if !plan.gaps.isEmpty { source = GapFiller(source, gaps: plan.gaps, sampleRate: plan.inputRate) }
        if plan.trailingSilence > 0 { source = SilencePadding(source, frames: plan.trailingSilence, side: .trailing) }
        switch plan.length {
        case .none:
            break
        case .resample(let frames):
            source = try ExactLengthResampler(
                upstream: source, targetFrames: frames, quality: request.quality, engine: request.engine,
                blockFrames: request.blockFrames)
        case .warp(let frames, let knots):
            source = try ExactLengthResampler(
                upstream: source, targetFrames: frames, quality: request.quality, along: knots,
                blockFrames: request.blockFrames)
        case .stretch(let frames, let rateFrames):
            if frames != source.frameCount { source = try plan.stretchStage(source, to: frames, record: stretched) }
            if let rateFrames {
                source = try ExactLengthResampler(
                    upstream: source, targetFrames: rateFrames, quality: request.quality, engine: request.engine,
                    blockFrames: request.blockFrames)
            }
        }
        return faded(source, plan)
    }

    private static func faded(_ source: AudioSource, _ plan: ProcessingPlan) -> AudioSource {
        plan.fadeIn != nil || plan.fadeOut != nil
            ? FadeStage(source, fadeIn: plan.fadeIn, fadeOut: plan.fadeOut) : source
    }

    /// A long plain resample (a trim at most: no reversal, silence or gaps around it) on `request.threads` threads,
    /// each reading the input through its own reader; nil where one pass is the way (one thread, a short file, or a
    /// ratio whose chunks could not start at the one-pass phase).
    static func segmented(_ plan: ProcessingPlan, reader: SeekableAudioSource, request: ProcessRequest)
        -> SegmentedResampler?
    {
        guard request.threads > 1, case .resample(let frames) = plan.length, !plan.reverse, plan.leadingSilence == 0,
            plan.trailingSilence == 0, plan.gaps.isEmpty
        else { return nil }
        let path = request.inputText
        return SegmentedResampler.make(
            open: { try AudioFileReader(path: path) }, range: plan.range,
            channelCount: reader.channelCount, targetFrames: frames, quality: request.quality,
            engine: request.engine, threads: request.threads, admission: request.borrowCore)
    }

    /// ", medium quality" (libsamplerate) or ", medium quality (polyphase)" where a resampler ran: the engine that
    /// ran, which for the polyphase kernel beyond its ratios is libsoxr.
    static func qualityNote(_ plan: ProcessingPlan, _ request: ProcessRequest) -> String {
        let stretched = plan.stretchEngine.map { " by \($0.shownName)" } ?? ""
        let engine: ResampleEngine
        switch plan.length {
        case .resample(let frames):
            engine = request.engine.running(ratio: Double(frames) / Double(max(1, plan.range.count)))
        case .stretch(_, .some): engine = request.engine
        case .warp: engine = .polyphase
        default: return stretched
        }
        return stretched + ", \(request.quality.rawValue) quality"
            + (engine == .libsamplerate ? "" : " (\(engine.rawValue))")
    }

    /// Whether reading and writing run on threads of their own, beside the conversion: only where this process may
    /// use more than one core (on one, the hand-offs and copies would cost more than they overlap).
    static let overlapsIO = Cores.available > 1

    /// Samples in a block handed from the reading thread to the writing one (512 KiB of floats).
    static let handOffSamples = 131_072

    /// Moves blocks from `source` to `writer` until the source ends, writing on a thread of its own so the
    /// encoder overlaps the conversion (with one core, or from a source that converts ahead on threads of its own: in
    /// turn, on this thread); checks the source kept its promised length.
    static func pump(
        _ source: AudioSource, into writer: AudioSink, blockFrames: Int, progress: ((Int64, Int64) throws -> Void)?
    ) throws {
        if !overlapsIO || source.convertsAhead {
            // From a source converting ahead, large blocks: each is one write call (dd's 1 MiB is its floor).
            let capacity = source.convertsAhead ? max(blockFrames, handOffSamples / source.channelCount) : blockFrames
            let block = AudioBlock(frames: capacity, channels: source.channelCount)
            var delivered: Int64 = 0
            while true {
                // A source converting ahead lends its own pieces: the frames go to the encoder without a copy.
                let next = try source.view(frames: block.capacity, scratch: block.samples)
                guard let samples = next.baseAddress, !next.isEmpty else { break }
                let frames = next.count / source.channelCount
                try writer.write(samples, frames: frames)
                delivered += Int64(frames)
                try progress?(delivered, source.frameCount)
            }
            try checkDelivered(source, writer)
            return
        }
        let depth = 3
        let free = BlockQueue<AudioBlock>(capacity: depth)
        let full = BlockQueue<AudioBlock>(capacity: depth)
        // Blocks of 512 KiB at least between the threads: every hand-off is a wake-up, and 8,192 frames a block made
        // 7,000 of them for 600 s of stereo (a tenth of the run's CPU in the scheduler); 3 blocks in flight.
        let handed = max(blockFrames, handOffSamples / source.channelCount)
        for _ in 0..<depth { free.push(AudioBlock(frames: handed, channels: source.channelCount)) }
        let outcome = WriteOutcome()
        let done = DispatchSemaphore(value: 0)
        let job = Handover(value: writer)
        let thread = Thread {
            defer { done.signal() }
            let writer = job.value
            while let block = full.pop() {
                do {
                    try writer.write(block.samples, frames: block.frames)
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
            do {
                // A caller may stop the repair here (its task cancelled): the writer thread is joined first.
                try progress?(delivered, source.frameCount)
            } catch {
                failure = error
                break
            }
        }
        full.close()
        done.wait()
        if let error = outcome.error ?? failure { throw error }
        try checkDelivered(source, writer)
    }

    private static func checkDelivered(_ source: AudioSource, _ writer: AudioSink) throws {
        guard writer.framesWritten == source.frameCount else {
            throw ProcessError(
                path: writer.destination,
                cause: "processing chain delivered \(writer.framesWritten) of \(source.frameCount) frames")
        }
    }

    /// One EBU Tech 3285 coding-history line describing this step.
    static func codingHistory(format: AudioFormat, method: String, from input: Int64, to output: Int64) -> String {
        let width = format.encoding.bytesPerSample.map { "W=\($0 * 8)," } ?? ""
        let mode = format.channelCount == 1 ? "mono" : format.channelCount == 2 ? "stereo" : "multitrack"
        return "A=PCM,F=\(format.sampleRate),\(width)M=\(mode),T=driftfix \(method); \(input) to \(output) frames"
    }
}

/// The first error the write thread met, read by the pumping thread after it joined.
private final class WriteOutcome: Sendable {
    private let stored = Mutex<(any Error)?>(nil)

    var error: (any Error)? { stored.withLock { $0 } }

    func record(_ error: any Error) {
        stored.withLock { if $0 == nil { $0 = error } }
    }
}
