import DriftAV
import DriftAudio
import DriftCore
import Foundation

import struct SystemPackage.FilePath

/// A media file whose audio a repair's output replaces (`ProcessRequest.muxInto`): a camera clip that gets the
/// recorder's audio cut in sync with it.
public struct MuxTarget: Sendable, Equatable {
    /// The media file copied: every stream but the replaced one packet for packet, with its metadata.
    public var media: String
    /// Its audio stream to replace; nil: the first.
    public var stream: Int?
}

/// Writes a repair into a copy of a media file in place of its audio stream, lossless where the container holds a
/// lossless codec exactly (PCM in MOV and MXF, ALAC in MP4, FLAC in Matroska; else the stream's own codec), verified
/// by decoding (exact length) and by comparing the copied packets before the rename.
enum MediaMux {
    /// Writes the chain `source` builds (once the copy is staged: a destination that must be refused is refused before
    /// any reading starts), `channels` wide.
    static func write(
        _ source: () throws -> AudioSource, channels: Int, plan: ProcessingPlan, request: ProcessRequest,
        into target: MuxTarget,
        input: (summary: FormatSummary, frames: Int64), method: String, started: ContinuousClock.Instant,
        bitsPerSample: Int?
    ) throws -> ProcessResult {
        let media = try MediaProbe.probe(target.media)
        guard
            let stream = target.stream.flatMap({ index in media.audioStreams.first { $0.index == index } })
                ?? media.audioStreams.first
        else {
            throw AudioError(
                path: target.media, cause: .unsupported("no audio stream to put the repaired audio in place of"))
        }
        if let real = PathText.realPath(request.outputText), real == PathText.realPath(target.media) {
            throw ProcessError(
                path: request.outputText, cause: "is the media file it would copy; write the copy elsewhere")
        }
        var replacement = MediaRewriter.Replacement(
            stream: stream.index, sampleRate: plan.outputRate, targetFrames: plan.targetFrames)
        replacement.channelCount = channels
        replacement.bitsPerSample = bitsPerSample
        let (writer, outcome) = try VerifiedOutput.write(
            for: request, source: source,
            open: { staged in
                try MediaRewriter(
                    input: target.media, replacing: [replacement], staged: staged,
                    encoderName: MediaRewriter.losslessEncoder(for: request.outputText))
            },
            check: { writer, written in
                try MediaVerifier.verify(
                    output: written, displayPath: request.outputText, audioStream: writer.audioStreamIndex,
                    expectedFrames: plan.targetFrames, expectedRate: plan.outputRate, input: target.media,
                    copied: writer.copiedStreams)
            })
        var notes = writer.plan.lossy ? ["\(writer.plan.codec) re-encoded: one more generation of lossy coding"] : []
        notes += writer.droppedStreams.map { "\($0) cannot go into \(writer.plan.muxer); not carried over" }
        let written = (try? MediaProbe.probe(request.outputText)) ?? media
        let outputStream = written.streams.first { $0.index == writer.audioStreamIndex } ?? stream
        return ProcessResult(
            inputText: request.inputText, outputText: request.outputText, inputFormat: input.summary,
            outputFormat: MediaRepair.summary(written, outputStream), inputFrames: input.frames,
            usedInputFrames: Int64(plan.range.count), outputFrames: outcome.foundFrames,
            method: method
                + ", into a copy of \((target.media as NSString).lastPathComponent) (\(outcome.copiedPackets) packets of its other streams copied)",
            methodChoice: plan.method, droppedMetadata: [], formatNotes: notes,
            elapsed: ContinuousClock.now - started)
    }

    /// The precision a lossless copy of `encoding` needs: 16 bits for 8- and 16-bit and companded PCM, 24 for
    /// 24-bit, 32 for 32-bit and floats.
    static func bits(of encoding: SampleEncoding) -> Int {
        switch encoding {
        case .pcmS8, .pcmU8, .pcm16, .ulaw, .alaw: return 16
        case .pcm32, .float32, .float64: return 32
        default: return 24
        }
    }
}
