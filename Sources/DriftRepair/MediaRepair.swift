import DriftAV
import DriftAudio
import DriftCore
import DriftDSP
import Foundation

import struct SystemPackage.FilePath

/// The repair of an audio stream read through FFmpeg: decoded in blocks, converted by the same chain as any file,
/// written either into the same kind of media file (other streams copied bit for bit) or, with `--format` or another
/// extension, into a file libsndfile writes (FLAC/WAV for a lossless archive copy); verified by decoding the result.
enum MediaRepair {
    static func run(_ request: ProcessRequest, progress: ((Int64, Int64) throws -> Void)?) throws -> ProcessResult {
        let clock = ContinuousClock.now
        let reader = try EncodedAudioReader(path: request.inputText, stream: request.audioStream)
        let plan = try Self.plan(request, reader)
        let method = plan.summary + (plan.length == .none ? "" : FileProcessor.qualityNote(plan, request))
        let job = Job(
            request: request, reader: reader, plan: plan, inputSummary: summary(reader.info, reader.stream),
            method: method, started: clock)
        if let target = request.muxInto {
            return try MediaMux.write(
                { try FileProcessor.chain(plan, reader: reader, request: request, segmenting: false) },
                channels: reader.channelCount, plan: plan, request: request, into: target,
                input: (job.inputSummary, reader.frameCount),
                method: method, started: clock, bitsPerSample: reader.stream.bitsPerSample)
        }
        if let type = request.outputType ?? FileType(extension: FilePath(request.outputText).lowercasedExtension ?? "")
        {
            return try writeAudioFile(job, as: type, progress: progress)
        }
        return try rewriteMedia(job, progress: progress)
    }

    /// One repair's reading side, as its writers need it.
    private struct Job {
        let request: ProcessRequest
        let reader: EncodedAudioReader
        let plan: ProcessingPlan
        let inputSummary: FormatSummary
        let method: String
        let started: ContinuousClock.Instant

        func result(
            outputFormat: FormatSummary, outputFrames: Int64, method: String, dropped: [String], notes: [String]
        )
            -> ProcessResult
        {
            ProcessResult(
                inputText: request.inputText, outputText: request.outputText, inputFormat: inputSummary,
                outputFormat: outputFormat,
                inputFrames: reader.frameCount, usedInputFrames: Int64(plan.range.count), outputFrames: outputFrames,
                method: method, methodChoice: plan.method, droppedMetadata: dropped, formatNotes: notes,
                elapsed: ContinuousClock.now - started)
        }
    }

    /// The request's plan for the stream, every value checked; backwards is refused.
    private static func plan(_ request: ProcessRequest, _ reader: EncodedAudioReader) throws -> ProcessingPlan {
        let plan: ProcessingPlan
        do {
            // A compressed stream seeks back by decoding from its start: its sound is measured on its first 30 s.
            plan = try ProcessingPlan(request: request, inputFrames: reader.frameCount, sampleRate: reader.sampleRate)
                .choosingStretchEngine(request.stretch, reader: reader, measuredSeconds: 30)
        } catch let error as PlanError {
            throw ProcessError(path: request.inputText, plan: error)
        }
        if plan.reverse {
            // Backwards through a compressed stream would decode it again from the start for every block.
            throw ProcessError(
                path: request.inputText,
                cause:
                    "--reverse reads compressed audio backwards, which driftfix does not do; convert it to WAV or FLAC first"
            )
        }
        return plan
    }

    /// A file libsndfile writes (`--format`, or an audio extension): the decoded samples as PCM, FLAC...
    private static func writeAudioFile(_ job: Job, as type: FileType, progress: ((Int64, Int64) throws -> Void)?) throws
        -> ProcessResult
    {
        let (request, reader, plan) = (job.request, job.reader, job.plan)
        let decoded = AudioFormat(
            container: .wav, encoding: pcmEncoding(for: reader.stream), sampleRate: reader.sampleRate,
            channelCount: reader.channelCount)
        let choice = try OutputFormatChoice(
            input: decoded, type: type, encoding: request.outputEncoding, path: request.outputText)
        var format = choice.format
        format.sampleRate = plan.outputRate
        format = format.forWriting(frames: plan.targetFrames)
        let (writer, verification) = try VerifiedOutput.write(
            for: request, progress: progress,
            source: { try FileProcessor.chain(plan, reader: reader, request: request, segmenting: false) },
            open: { staged in try AudioFileWriter(staged: staged, format: format, metadata: metadata(from: reader.info))
            },
            check: { _, written in
                try AudioFileVerifier.verify(path: written, expectedFrames: plan.targetFrames, expectedFormat: format)
            })
        return job.result(
            outputFormat: FormatSummary(format), outputFrames: verification.foundFrames, method: job.method,
            dropped: writer.droppedMetadata, notes: choice.notes)
    }

    /// The same kind of media file: the repaired audio re-encoded, every other stream copied packet for packet. A
    /// multi-track recording has every audio stream repaired by the same plan, unless one stream was asked for (the
    /// others are then copied as they are).
    private static func rewriteMedia(_ job: Job, progress: ((Int64, Int64) throws -> Void)?) throws -> ProcessResult {
        let (request, reader, plan) = (job.request, job.reader, job.plan)
        var replacements = [
            MediaRewriter.Replacement(
                stream: reader.stream.index, sampleRate: plan.outputRate, targetFrames: plan.targetFrames)
        ]
        var further: [(stream: Int, source: AudioSource)] = []
        // The other audio streams, each decoded once to count it: only once the destination is known to be writable.
        func chains() throws -> AudioSource {
            if request.audioStream == nil {
                for other in reader.info.audioStreams where other.index != reader.stream.index {
                    let otherReader = try EncodedAudioReader(path: request.inputText, stream: other.index)
                    let otherPlan: ProcessingPlan
                    do {
                        otherPlan = try ProcessingPlan(
                            request: request, inputFrames: otherReader.frameCount, sampleRate: otherReader.sampleRate
                        ).choosingStretchEngine(request.stretch, reader: otherReader, measuredSeconds: 30)
                    } catch let error as PlanError {
                        throw ProcessError(path: "\(request.inputText) (stream \(other.index))", plan: error)
                    }
                    replacements.append(
                        .init(
                            stream: other.index, sampleRate: otherPlan.outputRate,
                            targetFrames: otherPlan.targetFrames))
                    further.append(
                        (
                            other.index,
                            try FileProcessor.chain(
                                otherPlan, reader: otherReader, request: request, segmenting: false)
                        ))
                }
            }
            return try FileProcessor.chain(plan, reader: reader, request: request, segmenting: false)
        }
        let (writer, outcome) = try VerifiedOutput.write(
            for: request, progress: progress, source: chains,
            open: { staged in
                let writer = try MediaRewriter(
                    input: request.inputText, replacing: replacements, staged: staged,
                    threads: request.parallelEncode ? request.threads : 1)
                for (stream, chain) in further { writer.attach(chain, toStream: stream) }
                return writer
            },
            check: { writer, written in
                let outputIndex = writer.replacedStreams
                return try MediaVerifier.verify(
                    output: written, displayPath: request.outputText,
                    expected: replacements.map {
                        .init(
                            stream: outputIndex[$0.stream] ?? $0.stream, frames: $0.targetFrames,
                            sampleRate: $0.sampleRate)
                    },
                    input: request.inputText, copied: writer.copiedStreams)
            })
        var notes = writer.plan.lossy ? ["\(writer.plan.codec) re-encoded: one more generation of lossy coding"] : []
        notes += writer.droppedStreams.map { "\($0) cannot go into \(writer.plan.muxer); not carried over" }
        let outputInfo = (try? MediaProbe.probe(request.outputText)) ?? reader.info
        let outputStream = outputInfo.streams.first { $0.index == writer.audioStreamIndex } ?? reader.stream
        var method = job.method
        if replacements.count > 1 { method += ", \(replacements.count) audio streams" }
        if writer.encodedSegments > 1 {
            method +=
                ", \(writer.plan.codec) encoded in \(writer.encodedSegments) segments on \(request.threads) threads"
        }
        if outcome.copiedPackets > 0 { method += ", \(outcome.copiedPackets) packets of other streams copied" }
        return job.result(
            outputFormat: summary(outputInfo, outputStream), outputFrames: outcome.foundFrames, method: method,
            dropped: [], notes: notes)
    }

    /// A media file's tags as the libsndfile writer carries them (FFmpeg's names: `title`, `artist`, `encoder`...).
    static func metadata(from info: MediaInfo) -> AudioMetadata {
        let names: [String: AudioTag] = [
            "title": .title, "copyright": .copyright, "encoder": .software, "artist": .artist, "comment": .comment,
            "date": .date, "album": .album, "track": .trackNumber, "genre": .genre,
        ]
        var tags: [AudioTag: String] = [:]
        for (key, value) in info.tags {
            if let tag = names[key.lowercased()], !value.isEmpty { tags[tag] = value }
        }
        return AudioMetadata(tags: tags)
    }

    /// The PCM encoding that holds a decoded stream without loss of what it had.
    static func pcmEncoding(for stream: MediaStream) -> SampleEncoding {
        guard stream.isLossless, let bits = stream.bitsPerSample else { return .pcm24 }
        return bits <= 16 ? .pcm16 : bits <= 24 ? .pcm24 : .pcm32
    }

    static func summary(_ info: MediaInfo, _ stream: MediaStream) -> FormatSummary {
        var words = ["\(info.container)", stream.codec]
        if !stream.isLossless, let rate = stream.bitRate { words.append("\(rate / 1000) kb/s") }
        if stream.isLossless, let bits = stream.bitsPerSample { words.append("\(bits)-bit") }
        words.append("\(stream.sampleRate ?? 0) Hz")
        words.append(stream.channelLayout ?? "\(stream.channelCount ?? 0) channels")
        return FormatSummary(
            container: "\(info.container)", sampleRate: stream.sampleRate ?? 0,
            description: words.joined(separator: " "))
    }
}
