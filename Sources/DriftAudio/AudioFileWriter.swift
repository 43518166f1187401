internal import CLinux
internal import CSndFile
import DriftCore
import Glibc

public import struct SystemPackage.FilePath

/// Writes interleaved 32-bit float blocks to a new audio file through libsndfile.
///
/// The file is created exclusively (never over an existing one) on a descriptor the writer owns, so `close()`
/// can flush libsndfile's final header, put back the metadata libsndfile writes differently (the bext version and
/// coding history, a WAV speaker mask, the software tag, MP3 tags: see `WaveHeaderPatch` and `ID3Tag`), and then
/// `fsync` the data before anyone renames the file into place. Float samples above full scale are clipped when the
/// file stores integers.
public final class AudioFileWriter: AudioSink {
    /// The file being written (usually a temporary file).
    public let path: String
    /// The name used in messages (the final destination).
    package let displayPath: String
    public var destination: FilePath { FilePath(pathText: displayPath) }
    public let format: AudioFormat
    /// Metadata items the container would not take (for example bext in a FLAC file).
    public private(set) var droppedMetadata: [String] = []
    public private(set) var framesWritten: Int64 = 0

    private var handle: OpaquePointer?
    private let descriptor: Int32
    /// Integer samples are converted here and written as bytes, a block at a time (see `PCMCodec`).
    private var codec: PCMCodec?
    private var bytes = RawBuffer()
    /// Bytes written since the disk was last asked to start writing back what is dirty.
    private var unsynced = 0
    /// What the finished file must carry, checked and put back by `close()`.
    private let metadata: AudioMetadata
    /// Where driftfix lays out the container itself around the recording's chunks: the layout and the audio region
    /// libsndfile writes into.
    private var chunked: (layout: ChunkedLayout, window: OutputWindow)?

    /// Creates `path` (which must not exist) with `format`, and writes `metadata` before any audio, as FLAC and
    /// Ogg require.
    public convenience init(path: String, displayPath: String? = nil, format: AudioFormat, metadata: AudioMetadata)
        throws(AudioError)
    {
        let fd = PathText.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw AudioError(path: displayPath ?? path, cause: AudioFileWriter.cause(forErrno: code))
        }
        try self.init(
            descriptor: fd, path: path, displayPath: displayPath ?? path, format: format, metadata: metadata,
            removeOnFailure: true)
    }

    /// Writes the staged output's temporary file (created and locked by `staged`, which also deletes it if the
    /// output is never committed).
    public convenience init(staged: StagedOutput, format: AudioFormat, metadata: AudioMetadata) throws(AudioError) {
        let fd = try staged.writableDescriptor()
        try self.init(
            descriptor: fd, path: staged.temporaryPath, displayPath: staged.destination, format: format,
            metadata: metadata, removeOnFailure: false)
    }

    /// Writes through `fd` (owned from here on), the file at `path`.
    private init(
        descriptor fd: Int32, path: String, displayPath: String, format: AudioFormat, metadata: AudioMetadata,
        removeOnFailure: Bool
    ) throws(AudioError) {
        self.path = path
        self.displayPath = displayPath
        self.format = format
        self.metadata = metadata
        descriptor = fd
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channelCount)
        info.format = format.formatCode
        guard sf_format_check(&info) == SF_TRUE else {
            Glibc.close(fd)
            if removeOnFailure { PathText.withCString(path, { unlink($0) }) }
            throw AudioError(path: displayPath, cause: .unsupported("libsndfile cannot write \(format)"))
        }
        if let chunks = metadata.chunks,
            var layout = ChunkedLayout(chunks: chunks, format: format, channelMask: metadata.channelLayout?.waveMask)
        {
            let window: OutputWindow
            let raw: OpaquePointer
            do throws(AudioError) {
                guard layout.writeHeader(to: fd) else {
                    throw AudioError(path: displayPath, cause: AudioFileWriter.cause(forErrno: errno))
                }
                window = OutputWindow(descriptor: fd, start: layout.dataOffset)
                guard
                    let opened = window.open(
                        encoding: format.encoding, bigEndian: layout.bigEndianSamples, sampleRate: format.sampleRate,
                        channels: format.channelCount)
                else {
                    throw AudioError(path: displayPath, cause: .unsupported("libsndfile cannot write \(format)"))
                }
                raw = opened
            } catch {
                Glibc.close(fd)
                if removeOnFailure { PathText.withCString(path, { unlink($0) }) }
                throw error
            }
            chunked = (layout, window)
            handle = raw
            SndFile.setClipping(raw)
            codec = SndFile.codec(raw, encoding: format.encoding)
            return
        }
        let handle: OpaquePointer
        switch SndFile.open({ sf_open_fd(fd, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) }) {
        case .success(let opened): handle = opened
        case .failure(let failure):
            // A failed open has closed the descriptor already.
            if removeOnFailure { PathText.withCString(path, { unlink($0) }) }
            // Writing the header can be what finds the disk full.
            throw AudioError(
                path: displayPath, cause: AudioFileWriter.writeCause(errno: failure.systemErrno, text: failure.text))
        }
        self.handle = handle
        SndFile.setClipping(handle)
        codec = format.container.storesPlainSamples ? SndFile.codec(handle, encoding: format.encoding) : nil
        applyMetadata(metadata, to: handle)
    }

    deinit {
        if let handle { sf_close(handle) }
        if handle != nil { Glibc.close(descriptor) }
        bytes.release()
    }

    /// The recording's chunks this file cannot hold (another family, an encoding libsndfile lays out in blocks): what
    /// libsndfile writes instead carries the tags and bext only.
    private func uncarriedChunks(_ chunks: RecordingChunks) -> [String] {
        var seen: Set<String> = []
        return chunks.chunks.compactMap { chunk in
            // bext and the tags go through libsndfile; filler reserved space and says nothing.
            if chunk.id == "bext" || chunk.listType == "INFO" || RecordingChunks.filler.contains(chunk.id) {
                return nil
            }
            let name = chunk.listType.map { "LIST/\($0)" } ?? chunk.id.trimmingCharacters(in: .whitespaces)
            return seen.insert(name).inserted ? "\(name) chunk" : nil
        }
    }

    private func applyMetadata(_ metadata: AudioMetadata, to handle: OpaquePointer) {
        if let chunks = metadata.chunks { droppedMetadata += uncarriedChunks(chunks) }
        if format.container == .mpeg {
            // Written as an ID3v2 tag of driftfix's own once the file is closed (see `ID3Tag`).
            for tag in metadata.tags.keys.sorted(by: { $0.rawValue < $1.rawValue })
            where ID3Tag.unsupported.contains(tag) {
                droppedMetadata.append("tag \(tag)")
            }
        } else {
            for tag in SndFile.writeTags(handle, metadata.tags) { droppedMetadata.append("tag \(tag)") }
        }
        if let bext = metadata.broadcastInfo, !SndFile.writeBroadcastInfo(handle, bext) {
            droppedMetadata.append("bext")
        }
        if let layout = metadata.channelLayout, layout.positions.count == format.channelCount,
            layout.positions.contains(where: { $0 != 0 })
        {
            _ = SndFile.writeChannelMap(handle, layout.positions)  // checked against the finished file in close()
        }
    }

    /// Appends `frames` frames from `buffer`.
    public func write(_ buffer: UnsafePointer<Float>, frames: Int) throws(AudioError) {
        guard let handle else { preconditionFailure("write after close") }
        guard frames > 0 else { return }
        errno = 0
        let written: Int
        if let codec {
            let frameBytes = codec.bytesPerSample * format.channelCount
            let raw = bytes.reserve(frames * frameBytes)
            codec.encode(buffer, into: raw, count: frames * format.channelCount)
            written = Int(sf_write_raw(handle, raw, sf_count_t(frames * frameBytes))) / frameBytes
        } else {
            written = Int(sf_writef_float(handle, UnsafeMutablePointer(mutating: buffer), sf_count_t(frames)))
        }
        let code = chunked.map { $0.window.failure } ?? errno
        guard written == frames else { throw failure(handle: handle, errno: code) }
        framesWritten += Int64(written)
        // Sample bytes before any compression: a measure of what is dirty, near enough for a hint.
        unsynced += frames * format.channelCount * (codec?.bytesPerSample ?? format.encoding.bytesPerSample ?? 4)
        if unsynced >= Self.writebackBytes {
            unsynced = 0
            // A hint, so its failure (a file system without it) changes nothing: close()'s fsync makes the data
            // durable either way.
            _ = driftfix_start_writeback(descriptor)
        }
    }

    /// Dirty bytes after which their writeback is started: the disk writes while the conversion goes on, and the
    /// fsync in `close()` finds most of the file already on its way instead of flushing all of it at the end.
    static let writebackBytes = 8 << 20

    /// Puts the values of `chunks` into the carried chunks already written, where only values changed (markers moved
    /// onto where a stretch really put their sound, known once the audio is written); before `close()`. Returns the
    /// ids of chunks whose new form has another size: those keep what was first written.
    @discardableResult
    public func rewriteChunks(_ chunks: RecordingChunks) -> [String] {
        guard var current = chunked else { return [] }
        let kept = current.layout.rewrite(chunks, descriptor: descriptor)
        chunked = current
        return kept
    }

    /// Finishes the header, closes libsndfile, flushes the data to disk and releases the descriptor.
    public func close() throws(AudioError) {
        guard let handle else { return }
        self.handle = nil
        errno = 0
        let status = sf_close(handle)
        let closeErrno = chunked.map { $0.window.failure } ?? errno
        defer { Glibc.close(descriptor) }
        if status != 0 || closeErrno != 0 && chunked != nil {
            let text = status != 0 ? String(cString: sf_error_number(status)) : FileChecks.errnoText(closeErrno)
            throw AudioError(path: displayPath, cause: AudioFileWriter.writeCause(errno: closeErrno, text: text))
        }
        if var chunked {
            guard
                try chunked.layout.finish(
                    descriptor, dataBytes: chunked.window.length, frames: framesWritten, path: displayPath) != nil
            else {
                throw AudioError(path: displayPath, cause: AudioFileWriter.cause(forErrno: errno))
            }
        } else {
            try finish()
        }
        if fsync(descriptor) != 0 {
            let code = errno
            throw AudioError(path: displayPath, cause: AudioFileWriter.cause(forErrno: code))
        }
    }

    /// Puts back what libsndfile wrote differently, and notes what the container could not take.
    private func finish() throws(AudioError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw AudioError(path: displayPath, cause: .writeFailed(FileChecks.errnoText(errno)))
        }
        var file = DescriptorBytes(descriptor: descriptor, size: Int64(info.st_size))
        if format.container == .mpeg, let tag = ID3Tag.bytes(for: metadata.tags) {
            guard ID3Tag.prepend(tag, to: descriptor, size: file.size) else {
                throw AudioError(path: displayPath, cause: AudioFileWriter.cause(forErrno: errno))
            }
            file = DescriptorBytes(descriptor: descriptor, size: file.size + Int64(tag.count))
        }
        guard [.wav, .wavex, .rf64].contains(format.container), let layout = ContainerLayout.read(file) else {
            if let wanted = metadata.channelLayout, !wanted.isDefault, carriedLayout(file) != wanted.positions {
                droppedMetadata.append("channel layout \(wanted)")
            }
            return
        }
        if let bext = metadata.broadcastInfo, !droppedMetadata.contains("bext"),
            !WaveHeaderPatch.broadcast(bext, descriptor: descriptor, layout: layout)
        {
            droppedMetadata.append("bext coding history and version as they were")
        }
        if let software = metadata.tags[.software] { WaveHeaderPatch.software(software, file: file, layout: layout) }
        if let wanted = metadata.channelLayout {
            if let mask = wanted.waveMask {
                if !WaveHeaderPatch.channelMask(mask, descriptor: descriptor, layout: layout) && !wanted.isDefault {
                    droppedMetadata.append("channel layout \(wanted)")
                }
            } else if !wanted.isDefault, carriedLayout(file) != wanted.positions {
                droppedMetadata.append("channel layout \(wanted)")
            }
        }
    }

    /// The channel positions the finished file states, read back through libsndfile.
    private func carriedLayout(_ file: DescriptorBytes) -> [Int32]? {
        let copy = dup(descriptor)
        guard copy >= 0 else { return nil }
        lseek(copy, 0, SEEK_SET)
        var info = SF_INFO()
        guard case .success(let reopened) = SndFile.open({ sf_open_fd(copy, Int32(SFM_READ), &info, Int32(SF_TRUE)) })
        else { return nil }
        defer { sf_close(reopened) }
        return SndFile.readChannelMap(reopened, channels: format.channelCount)
    }

    private func failure(handle: OpaquePointer, errno code: Int32) -> AudioError {
        let text = SndFile.lastError(handle).text
        return AudioError(path: displayPath, cause: AudioFileWriter.writeCause(errno: code, text: text))
    }

    static func writeCause(errno code: Int32, text: String) -> AudioError.Cause {
        if code == ENOSPC || code == EDQUOT || text.contains("No space left") { return .diskFull }
        return .writeFailed(text)
    }

    public static func cause(forErrno code: Int32) -> AudioError.Cause {
        switch code {
        case ENOSPC, EDQUOT: return .diskFull
        case ENOENT, ENOTDIR: return .destinationMissing
        case EACCES, EPERM, EROFS: return .destinationNotWritable(FileChecks.errnoText(code))
        default: return .writeFailed(FileChecks.errnoText(code))
        }
    }
}

@available(*, unavailable, message: "a libsndfile handle belongs to one thread at a time")
extension AudioFileWriter: Sendable {}
