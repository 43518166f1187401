internal import CSndFile
import DriftCore
import Glibc

/// Reads an audio file in blocks of interleaved 32-bit floats through libsndfile.
///
/// Integer samples are scaled to [-1, 1); float files are read as they are. Memory is only what the caller's
/// buffer holds, so a 10-hour file costs the same as a 10-second one. Not thread-safe: one reader belongs to
/// one job.
public final class AudioFileReader: SeekableAudioSource {
    /// The file being read.
    public let path: String
    /// Container, encoding, rate and channel count from the header.
    public let format: AudioFormat
    /// Frames the header declares (checked against the file size for uncompressed encodings).
    public let frameCount: Int64
    public var channelCount: Int { format.channelCount }

    private let handle: OpaquePointer
    private var position: Int64 = 0

    /// Opens `path` for reading and checks that its header is plausible.
    ///
    /// - Throws: `AudioError` naming the file and the cause: missing, directory, unreadable, empty, not audio,
    ///   unsupported, corrupt, truncated, or no frames.
    public init(path: String) throws(AudioError) {
        let fileSize = try FileChecks.readableFileSize(path)
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw SndFile.openFailure(path: path, systemErrno: errno)
        }
        self.handle = handle
        self.path = path
        self.format = AudioFormat(
            formatCode: info.format, sampleRate: Int(info.samplerate), channelCount: Int(info.channels))
        self.frameCount = info.frames
        try validateHeader(fileSize: fileSize)
    }

    deinit {
        sf_close(handle)
    }

    private func validateHeader(fileSize: Int64) throws(AudioError) {
        guard format.sampleRate > 0, format.sampleRate <= 1_536_000 else {
            throw AudioError(path: path, cause: .corrupt("implausible sample rate \(format.sampleRate) Hz"))
        }
        guard format.channelCount > 0, format.channelCount <= 1024 else {
            throw AudioError(path: path, cause: .corrupt("implausible channel count \(format.channelCount)"))
        }
        guard frameCount != Int64.max, frameCount >= 0 else {
            throw AudioError(path: path, cause: .unsupported("length unknown"))
        }
        guard frameCount > 0 else { throw AudioError(path: path, cause: .noFrames) }
        guard format.container.storesPlainSamples, let bytes = format.encoding.bytesPerSample else { return }
        let frameBytes = Int64(bytes * format.channelCount)
        // libsndfile quietly shortens a file whose data chunk claims more bytes than the file holds (noting it
        // only in its log): a truncated recording must be refused, not repaired to the wrong length.
        if let claimedBytes = SndFile.claimedDataBytes(handle), claimedBytes / frameBytes > frameCount {
            throw AudioError(
                path: path, cause: .truncated(claimedFrames: claimedBytes / frameBytes, availableFrames: frameCount))
        }
        let available = fileSize / frameBytes
        if frameCount > available {
            throw AudioError(path: path, cause: .truncated(claimedFrames: frameCount, availableFrames: available))
        }
    }

    /// Reads up to `frames` frames into `buffer`; returns the count, 0 at the end.
    ///
    /// - Throws: `AudioError` when the data ends before the header's frame count (a truncated file).
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(AudioError) -> Int {
        let wanted = Int(min(Int64(frames), frameCount - position))
        guard wanted > 0 else { return 0 }
        let got = Int(sf_readf_float(handle, buffer, sf_count_t(wanted)))
        if got < wanted {
            let (code, text) = SndFile.lastError(handle)
            if code != 0 { throw AudioError(path: path, cause: .readFailed(text)) }
            if got == 0 {
                throw AudioError(
                    path: path, cause: .truncated(claimedFrames: frameCount, availableFrames: position))
            }
        }
        position += Int64(got)
        return got
    }

    /// Moves the read position to `frame` (0-based).
    public func seek(toFrame frame: Int64) throws(AudioError) {
        precondition(frame >= 0 && frame <= frameCount, "seek outside the file")
        guard sf_seek(handle, sf_count_t(frame), SEEK_SET) == frame else {
            throw AudioError(path: path, cause: .readFailed("seek to frame \(frame): \(SndFile.lastError(handle).text)"))
        }
        position = frame
    }

    /// The metadata driftfix carries over: string tags and bext.
    public func metadata() -> AudioMetadata {
        AudioMetadata(
            tags: SndFile.readTags(handle),
            broadcastInfo: SndFile.readBroadcastInfo(handle))
    }
}

@available(*, unavailable, message: "a libsndfile handle belongs to one thread at a time")
extension AudioFileReader: Sendable {}
