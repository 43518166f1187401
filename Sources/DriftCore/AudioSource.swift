public import struct SystemPackage.FilePath

/// A pull-based stream of interleaved 32-bit float frames with a length known before the first read.
///
/// Every stage of the processing chain (file reader, resampler, trim, fade, ...) is a source that pulls from the
/// one before it, so the whole chain runs in fixed-size blocks and its memory does not grow with the file.
/// Dispatch happens once per block, never per sample.
public protocol AudioSource: AnyObject {
    /// Interleaved channels per frame.
    var channelCount: Int { get }
    /// The exact number of frames this source delivers before it reports the end.
    var frameCount: Int64 { get }
    /// Fills up to `frames` frames of `buffer` (which holds at least `frames × channelCount` floats).
    /// Returns the frames written; 0 only at the end of the stream.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int
    /// Whether this source makes its frames ahead on threads of its own (a conversion cut into chunks): its reader
    /// overlaps nothing more by handing the frames to yet another thread, and each hand-off costs a wake-up.
    var convertsAhead: Bool { get }
    /// Up to `frames` frames to use in place, valid until the next read or view: the source's own storage where it
    /// holds its frames already (a conversion's output pieces: no copy), otherwise `scratch` (room for `frames`
    /// frames) read into. Empty only at the end of the stream.
    func view(frames: Int, scratch: UnsafeMutablePointer<Float>) throws -> UnsafeMutableBufferPointer<Float>
    /// Whether `read(planes:…)` reads each channel straight into its plane (a reader of integer PCM: the bytes
    /// decoded there), rather than interleaved and then parted.
    var readsPlanes: Bool { get }
    /// Reads up to `frames` frames into `planes` (one per channel, each written from `offset`), as a planar converter
    /// holds them. The default reads interleaved into `scratch` (room for `frames` frames) and parts the channels.
    /// Returns the frames read; 0 only at the end of the stream.
    func read(
        planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
        scratch: UnsafeMutablePointer<Float>
    ) throws -> Int
}

extension AudioSource {
    public var convertsAhead: Bool { false }

    public func view(frames: Int, scratch: UnsafeMutablePointer<Float>) throws -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: scratch, count: try read(into: scratch, frames: frames) * channelCount)
    }

    public var readsPlanes: Bool { false }

    public func read(
        planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
        scratch: UnsafeMutablePointer<Float>
    ) throws -> Int {
        try readParting(planes: planes, offset: offset, frames: frames, scratch: scratch)
    }

    /// `read(planes:…)` as the default does it: an interleaved read into `scratch`, parted into the planes (also
    /// what a source that reads planes for some encodings only does for the others).
    public func readParting(
        planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, frames: Int,
        scratch: UnsafeMutablePointer<Float>
    ) throws -> Int {
        let got = try read(into: scratch, frames: frames)
        AudioPlanes.part(scratch, frames: got, channels: channelCount, into: planes, offset: offset)
        return got
    }
}

/// Frames as a planar converter holds them: one array per channel.
public enum AudioPlanes {
    /// Parts `frames` interleaved frames of `channels` channels into `planes`, each written from `offset`.
    public static func part(
        _ interleaved: UnsafePointer<Float>, frames: Int, channels: Int,
        into planes: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int
    ) {
        for channel in 0..<channels {
            let plane = planes[channel] + offset
            for frame in 0..<frames { plane[frame] = interleaved[frame * channels + channel] }
        }
    }
}

/// A source that can jump to any frame: a file. Trim and reverse need it.
public protocol SeekableAudioSource: AudioSource {
    /// Moves the read position to `frame` (0-based, at most `frameCount`).
    func seek(toFrame frame: Int64) throws
}

/// Where a processing chain's frames go: an audio file being written (libsndfile, or a media file through FFmpeg).
public protocol AudioSink: AnyObject {
    /// The file named in messages (the final name, not the temporary file being written).
    var destination: FilePath { get }
    /// Frames accepted so far.
    var framesWritten: Int64 { get }
    /// Appends `frames` interleaved frames.
    func write(_ buffer: UnsafePointer<Float>, frames: Int) throws
}
