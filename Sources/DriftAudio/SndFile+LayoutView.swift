internal import CSndFile
import Glibc

/// A WAV or RF64/BW64 file as libsndfile can read it, laid out by driftfix's own walk of its chunks
/// (`ContainerLayout`) and handed to libsndfile through its virtual I/O:
///
/// - `padless`: the file without the pad bytes after its odd-sized chunks before the audio. Every RIFF chunk of odd
///   size is followed by one; libsndfile's RF64 reader does not skip it, so a valid file with an odd-sized chunk
///   before its audio (a vendor's, a `LIST`) is refused ("No 'data' chunk marker").
/// - `essential`: only the format and the audio (a header made here, the audio read where it lies), for a file whose
///   chunks driftfix walks but libsndfile trips over (a `LIST` whose sub-chunks do not fill it).
///
/// Every audio byte is the file's own. driftfix reads the chunks itself from the file (`RecordingChunks`), so what
/// the view leaves out is still carried.
final class LayoutView: VirtualSoundFile {
    enum Kind { case padless, essential }

    /// The view's bytes in order: made here, or a range of the file.
    private enum Piece {
        case bytes([UInt8])
        case file(offset: Int64, length: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .file(_, let length): length
            }
        }
    }

    private let pieces: [(start: Int64, piece: Piece)]
    /// A descriptor of the file, the view's own.
    let descriptor: Int32

    /// Whether `layout`'s file needs the padless view: an RF64/BW64 file with an odd-sized chunk before its audio.
    static func needsPadless(_ layout: ContainerLayout) -> Bool {
        layout.family == .rf64 && layout.chunks.contains { $0.offset < layout.dataOffset && $0.size & 1 == 1 }
    }

    /// Whether `layout`'s file can be given the essential view: a little-endian WAV or RF64 whose data chunk
    /// accounts for what follows it, and whose format chunk was found.
    static func allowsEssential(_ layout: ContainerLayout) -> Bool {
        guard layout.verdict == .consistent, layout.chunks.contains(where: { $0.id == "fmt " }) else { return false }
        switch layout.family {
        case .riff(bigEndian: false), .rf64: return true
        case .riff(bigEndian: true), .aiff, .caf: return false
        }
    }

    /// A view of `layout`'s file (taking ownership of `descriptor`); nil where the file's format chunk cannot be read.
    init?(_ kind: Kind, layout: ContainerLayout, descriptor: Int32) {
        self.descriptor = descriptor
        var pieces: [Piece] = []
        switch kind {
        case .padless:
            var file: Int64 = 0
            for chunk in layout.chunks where chunk.offset < layout.dataOffset && chunk.size & 1 == 1 {
                let pad = chunk.offset + chunk.size
                pieces.append(.file(offset: file, length: pad - file))
                file = pad + 1
            }
            pieces.append(.file(offset: file, length: layout.fileSize - file))
        case .essential:
            guard let format = layout.chunks.first(where: { $0.id == "fmt " }),
                let payload = DescriptorBytes(descriptor: descriptor, size: layout.fileSize)
                    .bytes(at: format.offset, count: Int(min(format.size, 4096)))
            else {
                close(descriptor)
                return nil
            }
            let data = layout.dataBytes
            let rf64 = layout.family == .rf64 || data > Int64(UInt32.max) - 1024
            let fmt = Self.chunk("fmt ", payload)
            let sizes = 4 + (rf64 ? 36 : 0) + Int64(fmt.count) + 8 + data + (data & 1)
            var head = Array((rf64 ? "RF64" : "RIFF").utf8) + Self.le(rf64 ? 0xFFFF_FFFF : UInt64(sizes), 4)
            head += Array("WAVE".utf8)
            if rf64 {
                let frames = layout.blockAlign.map { data / max(1, $0) } ?? 0
                head +=
                    Array("ds64".utf8) + Self.le(28, 4) + Self.le(UInt64(sizes), 8) + Self.le(UInt64(data), 8)
                    + Self.le(UInt64(frames), 8) + Self.le(0, 4)
            }
            head += fmt + Array("data".utf8) + Self.le(rf64 ? 0xFFFF_FFFF : UInt64(data), 4)
            pieces = [.bytes(head), .file(offset: layout.dataOffset, length: data)]
        }
        var start: Int64 = 0
        self.pieces = pieces.map { piece in
            defer { start += piece.length }
            return (start, piece)
        }
        super.init(length: start)
    }

    deinit {
        close(descriptor)
    }

    private static func le(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) }
    }

    private static func chunk(_ id: String, _ payload: [UInt8]) -> [UInt8] {
        Array(id.utf8) + le(UInt64(payload.count), 4) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    override func read(into buffer: UnsafeMutableRawPointer, count wanted: Int64, at position: Int64) -> Int64 {
        var done: Int64 = 0
        // The piece holding the position, then the ones after it.
        var index = pieces.lastIndex { $0.start <= position } ?? 0
        while done < wanted, index < pieces.count {
            let (start, piece) = pieces[index]
            let at = position + done - start
            let take = min(wanted - done, piece.length - at)
            guard take > 0 else {
                index += 1
                continue
            }
            switch piece {
            case .bytes(let bytes):
                bytes.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    (buffer + Int(done)).copyMemory(from: base + Int(at), byteCount: Int(take))
                }
                done += take
                index += 1
            case .file(let offset, _):
                let got = pread(descriptor, buffer + Int(done), Int(take), off_t(offset + at))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return done }
                done += Int64(got)
                if Int64(got) == take { index += 1 }
            }
        }
        return done
    }
}
