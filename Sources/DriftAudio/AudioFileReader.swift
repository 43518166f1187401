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
    /// Frames of audio in the file: the header's count, checked against the bytes the file holds (and, for a WAV
    /// whose 32-bit size wrapped past 4 GiB, the true count).
    public let frameCount: Int64
    public var channelCount: Int { format.channelCount }
    /// How the file's data chunk was found: set when its stated size was recognised as wrapped past 4 GiB.
    public let wrappedHeader: WrappedHeader?
    /// The file's chunk layout, where driftfix walks it (WAV, RF64, AIFF, CAF).
    let layout: ContainerLayout?

    /// The handle tags and bext are read from (the container as libsndfile parsed it).
    private let handle: OpaquePointer
    /// The descriptor `handle` reads (libsndfile's, open while it is), where the file was opened through one.
    private let descriptor: Int32?
    /// The handle samples are read from: `handle`, or a RAW view of the true data when the header wrapped.
    private let samples: OpaquePointer
    private let window: RawWindow?
    /// The view libsndfile reads the file through, where it cannot read the file itself (nil: the file itself).
    private let view: LayoutView?
    private var position: Int64 = 0
    /// Integer samples are read as bytes and converted here, a block at a time (see `PCMCodec`); nil: libsndfile converts.
    private let codec: PCMCodec?
    private var bytes = RawBuffer()
    /// Frames read ahead into `bytes` by planar reads and not yet decoded: [aheadFrom, aheadTo).
    private var aheadFrom = 0
    private var aheadTo = 0
    /// Frames a planar read asks libsndfile for at once: a converter's planes take a few thousand frames at a time,
    /// and a read call each was six times the calls.
    static let planarReadFrames = 32_768

    /// A header whose 32-bit data size wrapped: what it stated and what the file really holds.
    public struct WrappedHeader: Equatable, Sendable {
        public let statedFrames: Int64
        public let trueFrames: Int64
    }

    /// Opens `path` for reading and checks that its header is plausible and honest.
    ///
    /// - Throws: `AudioError` naming the file and the cause: missing, directory, not a regular file, unreadable,
    ///   empty, not audio, unsupported, corrupt, truncated, audio hidden by a too-small data size, or no frames.
    public init(path: String) throws(AudioError) {
        let (descriptor, fileSize) = try FileChecks.openRegularFile(path)
        let layout = ContainerLayout.read(DescriptorBytes(descriptor: descriptor, size: fileSize))
        // A chunk whose count claims more than it holds misleads libsndfile: found here, named if it does.
        let walked = DescriptorBytes(descriptor: descriptor, size: fileSize)
        let malformed = layout.map { $0.malformedChunk(in: walked) } ?? ContainerLayout.brokenChunk(walked)
        // A second descriptor for the RAW view of a wrapped file; libsndfile takes (and closes) the first.
        var spare: Int32 = -1
        if case .wrapped = layout?.verdict { spare = dup(descriptor) }
        // Views of the file for libsndfile where it cannot read the file itself (each with its own descriptor:
        // libsndfile closes the first): an RF64 file with an odd-sized chunk before its audio without the pad bytes
        // its RF64 reader does not skip; a file driftfix walks but libsndfile trips over as its format and audio.
        var kinds: [LayoutView.Kind] = []
        if let layout, LayoutView.needsPadless(layout) { kinds.append(.padless) }
        if let layout, LayoutView.allowsEssential(layout), malformed == nil { kinds.append(.essential) }
        let spareForViews = kinds.isEmpty ? -1 : dup(descriptor)
        var info = SF_INFO()
        var opened = SndFile.open { sf_open_fd(descriptor, Int32(SFM_READ), &info, Int32(SF_TRUE)) }
        var view: LayoutView?
        if case .failure = opened, let layout, spareForViews >= 0 {
            for kind in kinds {
                guard let tried = LayoutView(kind, layout: layout, descriptor: dup(spareForViews)) else { continue }
                info = SF_INFO()
                opened = tried.open(.read, &info)
                if case .success = opened {
                    view = tried
                    break
                }
            }
        }
        if spareForViews >= 0 { close(spareForViews) }
        self.view = view
        self.descriptor = (try? opened.get()) == nil ? nil : view?.descriptor ?? descriptor
        if case .failure(let error) = opened, Int(error.code) == SF_ERR_UNRECOGNISED_FORMAT,
            AudioFileReader.guessedByName(path)
        {
            // Headerless formats libsndfile recognises only by extension (MP3 without ID3 tag, .au/.vox/.gsm raw).
            opened = SndFile.open { PathText.withCString(path, { sf_open($0, Int32(SFM_READ), &info) }) }
        }
        let handle: OpaquePointer
        switch opened {
        case .success(let opened) where layout == nil && malformed != nil:
            // libsndfile found audio past a chunk that lies; driftfix cannot walk the file to carry its chunks, and
            // will not read audio a lie led to: refused, naming the chunk.
            sf_close(opened)
            if spare >= 0 { close(spare) }
            throw AudioError(
                path: path, cause: .malformedChunk(malformed ?? MalformedChunk(id: "?", afterAudio: false, problem: ""))
            )
        case .success(let opened): handle = opened
        case .failure(let error):
            if spare >= 0 { close(spare) }
            // driftfix's own reading of the file says more than libsndfile's "no data chunk marker".
            if let malformed { throw AudioError(path: path, cause: .malformedChunk(malformed)) }
            if case .cutShort(let chunk, let available)? = layout?.verdict {
                throw AudioError(path: path, cause: .malformedChunk(Self.cutShort(chunk, available: available)))
            }
            throw SndFile.openFailure(path: path, error)
        }
        self.handle = handle
        self.path = path
        self.layout = layout
        let format = AudioFormat(
            formatCode: info.format, sampleRate: Int(info.samplerate), channelCount: Int(info.channels))
        self.format = format
        do throws(AudioError) {
            let checked = try AudioFileReader.check(
                path: path, format: format, frames: info.frames, fileSize: fileSize, layout: layout,
                malformed: malformed, handle: handle, spare: spare)
            frameCount = checked.frames
            wrappedHeader = checked.wrapped
            window = checked.window
            let view = checked.samples ?? handle
            samples = view
            codec = format.container.storesPlainSamples ? SndFile.codec(view, encoding: format.encoding) : nil
        } catch {
            sf_close(handle)
            throw error
        }
    }

    deinit {
        if samples != handle { sf_close(samples) }
        sf_close(handle)
        bytes.release()
    }

    /// A chunk after the audio that states more bytes than the file holds.
    private static func cutShort(_ chunk: ContainerLayout.Chunk, available: Int64) -> MalformedChunk {
        MalformedChunk(
            id: chunk.id, afterAudio: true,
            problem: "states \(chunk.size) bytes, but \(available) remain in the file: cut short, or a size that lies")
    }

    private static func guessedByName(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return false }
        return ["mp3", "au", "snd", "vox", "vox6", "vox8", "gsm"].contains(name[name.index(after: dot)...].lowercased())
    }

    private struct Checked {
        var frames: Int64
        var wrapped: WrappedHeader?
        var window: RawWindow?
        var samples: OpaquePointer?
    }

    /// Checks the header against the file; for a recognised wrapped header, opens the RAW view of the true data.
    private static func check(
        path: String, format: AudioFormat, frames: Int64, fileSize: Int64, layout: ContainerLayout?,
        malformed: MalformedChunk?, handle: OpaquePointer, spare: Int32
    ) throws(AudioError) -> Checked {
        var owned = spare
        defer { if owned >= 0 { close(owned) } }
        guard format.sampleRate > 0, format.sampleRate <= 1_536_000 else {
            throw AudioError(path: path, cause: .corrupt("implausible sample rate \(format.sampleRate) Hz"))
        }
        guard format.channelCount > 0, format.channelCount <= 1024 else {
            throw AudioError(path: path, cause: .corrupt("implausible channel count \(format.channelCount)"))
        }
        guard frames != Int64.max, frames >= 0 else {
            throw AudioError(path: path, cause: .unsupported("length unknown"))
        }
        let frameBytes = format.encoding.bytesPerSample.map { Int64($0 * format.channelCount) }
        func inFrames(_ bytes: Int64) -> Int64? { frameBytes.map { bytes / $0 } }
        if let layout {
            switch layout.verdict {
            case .consistent:
                break
            case .truncated(let available):
                if let claimed = inFrames(layout.claimedDataBytes), let held = inFrames(available) {
                    throw AudioError(path: path, cause: .truncated(claimedFrames: claimed, availableFrames: held))
                }
            case .cutShort(let chunk, let available):
                throw AudioError(path: path, cause: .malformedChunk(cutShort(chunk, available: available)))
            case .hidden(let following):
                throw AudioError(
                    path: path,
                    cause: .hiddenAudio(
                        HiddenAudio(
                            statedBytes: layout.claimedDataBytes, followingBytes: following, wrappedBytes: nil,
                            frameBytes: frameBytes, sampleRate: format.sampleRate)))
            case .wrapped(let trueBytes):
                let hidden = HiddenAudio(
                    statedBytes: layout.claimedDataBytes, followingBytes: trueBytes - layout.claimedDataBytes,
                    wrappedBytes: trueBytes, frameBytes: frameBytes, sampleRate: format.sampleRate)
                // The RAW view needs plain samples whose layout the walker read, and libsndfile must have parsed the
                // same data chunk (its frame count is the stated size's).
                guard let frameBytes, let order = layout.sampleByteOrder, layout.blockAlign == frameBytes,
                    frames == layout.claimedDataBytes / frameBytes, owned >= 0
                else {
                    throw AudioError(path: path, cause: .hiddenAudio(hidden))
                }
                let window = RawWindow(descriptor: owned, start: layout.dataOffset, length: trueBytes)
                owned = -1
                guard
                    let view = window.open(
                        encoding: format.encoding, order: order, sampleRate: format.sampleRate,
                        channels: format.channelCount)
                else {
                    throw AudioError(path: path, cause: .hiddenAudio(hidden))
                }
                let trueFrames = trueBytes / frameBytes
                return Checked(
                    frames: trueFrames, wrapped: WrappedHeader(statedFrames: frames, trueFrames: trueFrames),
                    window: window, samples: view)
            }
        }
        // libsndfile misled by a chunk that claims more than it holds (it reads on into the audio): name the chunk.
        if let layout, case .consistent = layout.verdict, let frameBytes, layout.dataBytes / frameBytes != frames,
            let malformed
        {
            throw AudioError(path: path, cause: .malformedChunk(malformed))
        }
        guard frames > 0 else { throw AudioError(path: path, cause: .noFrames) }
        guard format.container.storesPlainSamples, let frameBytes else { return Checked(frames: frames) }
        // libsndfile quietly shortens a file whose data chunk claims more bytes than the file holds (noting it
        // only in its log): a truncated recording must be refused, not repaired to the wrong length.
        if let claimedBytes = SndFile.claimedDataBytes(handle), claimedBytes / frameBytes > frames {
            throw AudioError(
                path: path, cause: .truncated(claimedFrames: claimedBytes / frameBytes, availableFrames: frames))
        }
        let available = fileSize / frameBytes
        if frames > available {
            throw AudioError(path: path, cause: .truncated(claimedFrames: frames, availableFrames: available))
        }
        return Checked(frames: frames)
    }

    /// Reads up to `frames` frames into `buffer`; returns the count, 0 at the end.
    ///
    /// - Throws: `AudioError` when the data ends before the header's frame count (a truncated file).
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(AudioError) -> Int {
        if let codec, let ahead = aheadBytes(codec) {  // what a planar read left, first
            let n = min(frames, aheadTo - aheadFrom)
            codec.decode(ahead, into: buffer, count: n * channelCount)
            aheadFrom += n
            position += Int64(n)
            return n
        }
        let wanted = Int(min(Int64(frames), frameCount - position))
        guard wanted > 0 else { return 0 }
        let got: Int
        if let codec {
            let raw = try readRaw(frames: wanted, codec: codec)
            got = raw.frames
            codec.decode(raw.bytes, into: buffer, count: got * format.channelCount)
        } else {
            got = try checked(Int(sf_readf_float(samples, buffer, sf_count_t(wanted))), wanted: wanted)
        }
        position += Int64(got)
        return got
    }

    public var readsPlanes: Bool { codec != nil }

    /// Integer PCM is decoded straight into the planes, from bytes read `planarReadFrames` at a time; other
    /// encodings are read interleaved into `scratch` and parted.
    public func read(
        planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
        scratch: UnsafeMutablePointer<Float>
    ) throws -> Int {
        guard let codec else {
            return try readParting(planes: planes, offset: offset, frames: frames, scratch: scratch)
        }
        if aheadTo == aheadFrom {
            let wanted = Int(min(Int64(Self.planarReadFrames), frameCount - position))
            guard wanted > 0 else { return 0 }
            aheadFrom = 0
            aheadTo = try readRaw(frames: wanted, codec: codec).frames
        }
        guard let ahead = aheadBytes(codec) else { return 0 }
        let n = min(frames, aheadTo - aheadFrom)
        codec.decode(ahead, planes: planes, offset: offset, frames: n, channels: channelCount)
        aheadFrom += n
        position += Int64(n)
        return n
    }

    /// The first byte read ahead and not yet decoded; nil when none is.
    private func aheadBytes(_ codec: PCMCodec) -> UnsafeMutableRawPointer? {
        guard aheadTo > aheadFrom, let base = bytes.base else { return nil }
        return base + aheadFrom * codec.bytesPerSample * channelCount
    }

    /// Up to `frames` frames of the file's bytes, into `bytes`.
    private func readRaw(frames: Int, codec: PCMCodec) throws(AudioError) -> (
        bytes: UnsafeMutableRawPointer, frames: Int
    ) {
        let frameBytes = codec.bytesPerSample * format.channelCount
        let raw = bytes.reserve(frames * frameBytes)
        let got = Int(sf_read_raw(samples, raw, sf_count_t(frames * frameBytes))) / frameBytes
        return (raw, try checked(got, wanted: frames))
    }

    /// `got` of `wanted` frames read: fewer is the end of what libsndfile reads, an error, or (none at all before
    /// the header's count) a truncated file.
    private func checked(_ got: Int, wanted: Int) throws(AudioError) -> Int {
        if got < wanted {
            let (code, text) = SndFile.lastError(samples)
            if code != 0 { throw AudioError(path: path, cause: .readFailed(text)) }
            if got == 0 {
                throw AudioError(
                    path: path, cause: .truncated(claimedFrames: frameCount, availableFrames: position))
            }
        }
        return got
    }

    /// Moves the read position to `frame` (0-based).
    public func seek(toFrame frame: Int64) throws(AudioError) {
        precondition(frame >= 0 && frame <= frameCount, "seek outside the file")
        (aheadFrom, aheadTo) = (0, 0)  // bytes read ahead belong to the old position
        guard sf_seek(samples, sf_count_t(frame), SEEK_SET) == frame else {
            throw AudioError(
                path: path, cause: .readFailed("seek to frame \(frame): \(SndFile.lastError(samples).text)"))
        }
        position = frame
    }

    /// The metadata driftfix carries over: string tags, bext and the channel layout.
    public func metadata() -> AudioMetadata {
        let positions = SndFile.readChannelMap(handle, channels: format.channelCount)
        let mask = layout?.channelMask
        return AudioMetadata(
            tags: SndFile.readTags(handle),
            broadcastInfo: SndFile.readBroadcastInfo(handle),
            channelLayout: positions != nil || mask != nil
                ? ChannelLayout(positions: positions ?? Array(repeating: 0, count: format.channelCount), waveMask: mask)
                : nil)
    }
}

extension AudioFileReader {
    /// The payload of the file's first chunk named `id` (`iXML`, `axml`, ...), up to `limit` bytes; nil when the file
    /// has none (or libsndfile keeps no chunks for its type).
    public func chunk(_ id: String, limit: Int = 1 << 20) -> [UInt8]? {
        SndFile.readChunk(handle, id: id, limit: limit)
    }

    /// The chunks a repair carries into an output of the same family (WAV, BWF, RF64, AIFF), in the file's order;
    /// nil for other files.
    public func recordingChunks() -> RecordingChunks? {
        guard let layout, let descriptor else { return nil }
        return RecordingChunks.read(layout: layout, descriptor: descriptor)
    }

    /// The string tags and the bext chunk, without the channel layout (cheap: what the scan needs to name a device).
    public func descriptiveMetadata() -> (tags: [AudioTag: String], broadcastInfo: BroadcastInfo?) {
        (SndFile.readTags(handle), SndFile.readBroadcastInfo(handle))
    }
}

@available(*, unavailable, message: "a libsndfile handle belongs to one thread at a time")
extension AudioFileReader: Sendable {}
