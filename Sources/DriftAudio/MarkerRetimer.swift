import DriftCore
import Foundation

/// Moves the marks a recording's chunks place in its time onto the repaired copy's time, field by field, leaving every
/// other byte as it was:
///
/// - `cue ` points (their position and sample offset in the data) and, in `LIST`/`adtl`, each labelled region's
///   length (`ltxt`);
/// - `smpl` loops (start and inclusive end) and its sample period when the rate changes;
/// - `plst` playlist segments' lengths;
/// - AIFF `MARK` positions.
///
/// A mark in a trimmed part is kept at the nearest end and noted; in a cut (a clip's audio from a longer recording) a
/// mark outside the cut belongs to other sound and is left out, with its labels.
struct MarkerRetimer {
    let retiming: ChunkRetiming
    private(set) var notes: [String] = []
    /// Cue point names from the `adtl` labels, for the notes.
    private var labels: [UInt32: String] = [:]
    /// Each cue point's recording position and its place in the output (nil: left out).
    private var cues: [UInt32: (old: Int64, new: Int64?)] = [:]

    init(retiming: ChunkRetiming, chunks: [RecordingChunks.Chunk]) {
        self.retiming = retiming
        for chunk in chunks where chunk.listType == "adtl" {
            for sub in Self.subchunks(of: ChunkBytes(chunk.bytes ?? [])) ?? [] where sub.id == "labl" {
                let bytes = ChunkBytes(Array(sub.payload))
                guard let id = bytes.u32(at: 0), bytes.count > 4 else { continue }
                labels[id] = String(decoding: bytes.bytes[4...].prefix { $0 != 0 }, as: UTF8.self)
            }
        }
    }

    // MARK: RIFF

    /// A `cue ` chunk with every point moved (points outside a cut left out).
    mutating func cue(_ payload: [UInt8]) -> [UInt8]? {
        let bytes = ChunkBytes(payload)
        guard let count = bytes.u32(at: 0), 4 + Int(count) * 24 <= payload.count else { return nil }
        var points: [[UInt8]] = []
        for index in 0..<Int(count) {
            let start = 4 + index * 24
            var point = ChunkBytes(Array(payload[start..<start + 24]))
            guard let id = point.u32(at: 0), let position = point.u32(at: 4), let offset = point.u32(at: 20) else {
                return nil
            }
            // The sample offset locates the mark in the data chunk; the position is its place in play order, the
            // same number in a file without a playlist.
            let inData = point.fourCC(at: 8) == "data"
            let marked = Int64(inData ? offset : position)
            guard let placed = place(marked, what: name(cue: id)) else {
                cues[id] = (marked, nil)
                continue
            }
            cues[id] = (marked, placed)
            if inData {
                point.set(UInt64(clamp(placed)), at: 20, width: 4)
                let played = position == offset ? placed : map(Int64(position)).position
                point.set(UInt64(clamp(played)), at: 4, width: 4)
            } else {
                point.set(UInt64(clamp(placed)), at: 4, width: 4)
            }
            points.append(point.bytes)
        }
        let head = ChunkBytes.encode(UInt64(points.count), width: 4, bigEndian: false)
        return head + points.flatMap { $0 } + Array(payload[(4 + Int(count) * 24)...])
    }

    /// A `LIST`/`adtl` chunk: labels and notes of points left out go with them; a labelled region's length is moved.
    mutating func associatedData(_ payload: [UInt8]) -> [UInt8]? {
        // A sub-chunk whose size runs past the list's end: nothing after it can be trusted, so none of it is edited.
        guard let subchunks = Self.subchunks(of: ChunkBytes(payload)) else { return nil }
        var result = Array(payload.prefix(4))
        for sub in subchunks {
            var body = ChunkBytes(Array(sub.payload))
            if let id = body.u32(at: 0), let cue = cues[id] {
                guard let start = cue.new else { continue }
                if sub.id == "ltxt", let length = body.u32(at: 4) {
                    let end = map(cue.old + Int64(length)).position
                    body.set(UInt64(clamp(max(0, end - start))), at: 4, width: 4)
                }
            }
            result += ChunkBytes.framed(sub.id, body.bytes, bigEndian: false)
        }
        return result
    }

    /// A `smpl` chunk: each loop's start and inclusive end moved, the sample period at the output's rate.
    mutating func sampler(_ payload: [UInt8]) -> [UInt8]? {
        var bytes = ChunkBytes(payload)
        guard let loopCount = bytes.u32(at: 28), 36 + Int(loopCount) * 24 <= payload.count else { return nil }
        if retiming.outputRate != retiming.inputRate, retiming.outputRate > 0 {
            let period = (2_000_000_000 + UInt64(retiming.outputRate)) / (2 * UInt64(retiming.outputRate))
            bytes.set(period, at: 8, width: 4)
        }
        var loops: [[UInt8]] = []
        for index in 0..<Int(loopCount) {
            let start = 36 + index * 24
            var loop = ChunkBytes(Array(payload[start..<start + 24]))
            guard let first = loop.u32(at: 8), let last = loop.u32(at: 12) else { return nil }
            let what = "loop \(index + 1)"
            guard let placed = place(Int64(first), what: what) else { continue }
            let end = map(Int64(last) + 1).position
            loop.set(UInt64(clamp(placed)), at: 8, width: 4)
            loop.set(UInt64(clamp(max(placed, end - 1))), at: 12, width: 4)
            loops.append(loop.bytes)
        }
        bytes.set(UInt64(loops.count), at: 28, width: 4)
        return Array(bytes.bytes[0..<36]) + loops.flatMap { $0 } + Array(payload[(36 + Int(loopCount) * 24)...])
    }

    /// A `plst` chunk: each segment's length moved with its cue point; segments of points left out go with them.
    mutating func playlist(_ payload: [UInt8]) -> [UInt8]? {
        let bytes = ChunkBytes(payload)
        guard let count = bytes.u32(at: 0), 4 + Int(count) * 12 <= payload.count else { return nil }
        var segments: [[UInt8]] = []
        for index in 0..<Int(count) {
            let start = 4 + index * 12
            var segment = ChunkBytes(Array(payload[start..<start + 12]))
            guard let id = segment.u32(at: 0), let length = segment.u32(at: 4) else { return nil }
            if let cue = cues[id] {
                guard let placed = cue.new else { continue }
                let end = map(cue.old + Int64(length)).position
                segment.set(UInt64(clamp(max(0, end - placed))), at: 4, width: 4)
            }
            segments.append(segment.bytes)
        }
        return ChunkBytes.encode(UInt64(segments.count), width: 4, bigEndian: false) + segments.flatMap { $0 }
            + Array(payload[(4 + Int(count) * 12)...])
    }

    // MARK: AIFF

    /// An AIFF `MARK` chunk with every marker moved (markers outside a cut left out).
    mutating func aiffMarkers(_ payload: [UInt8]) -> [UInt8]? {
        let bytes = ChunkBytes(payload, bigEndian: true)
        guard let count = bytes.u16(at: 0) else { return nil }
        var offset = 2
        var markers: [[UInt8]] = []
        for _ in 0..<Int(count) {
            guard let position = bytes.u32(at: offset + 2), offset + 6 < payload.count else { return nil }
            // A Pascal string, padded so that its count byte and text fill an even number of bytes.
            let length = Int(payload[offset + 6])
            let end = offset + 6 + 1 + length + (length % 2 == 0 ? 1 : 0)
            guard end <= payload.count else { return nil }
            var marker = ChunkBytes(Array(payload[offset..<end]), bigEndian: true)
            let name = String(decoding: payload[(offset + 7)..<(offset + 7 + length)], as: UTF8.self)
            offset = end
            guard let placed = place(Int64(position), what: "marker \"\(name)\"") else { continue }
            marker.set(UInt64(clamp(placed)), at: 2, width: 4)
            markers.append(marker.bytes)
        }
        return ChunkBytes.encode(UInt64(markers.count), width: 2, bigEndian: true) + markers.flatMap { $0 }
            + Array(payload[offset...])
    }

    // MARK: placing

    /// The output place of a mark at recording position `position`; nil when it is left out (outside a cut).
    private mutating func place(_ position: Int64, what: String) -> Int64? {
        let (placed, placement) = map(position)
        let time = String(format: "%.3f s", Double(position) / Double(max(1, retiming.inputRate)))
        switch placement {
        case .kept:
            break
        case .atFill:
            notes.append(
                "\(what) at \(time) was where the recorder lost sound: placed after the re-inserted sound, "
                    + "on the sound that followed the loss")
        case .trimmed:
            if retiming.isCut { return nil }
            let start = position < retiming.map.kept.lowerBound
            notes.append(
                "\(what) at \(time) lay in the trimmed \(start ? "start" : "end"): placed at the output's "
                    + "\(start ? "first" : "last") frame")
        }
        return placed
    }

    private func map(_ position: Int64) -> (position: Int64, placement: FrameMap.Placement) {
        retiming.map.map(position)
    }

    private func name(cue id: UInt32) -> String {
        labels[id].map { "marker \(id) \"\($0)\"" } ?? "marker \(id)"
    }

    private func clamp(_ value: Int64) -> UInt32 { UInt32(clamping: max(0, value)) }

    /// The subchunks of a `LIST` payload (after its 4-byte form type).
    /// The sub-chunks of a `LIST` payload (after its form type), or nil when they do not fill it as the
    /// specification lays them out: a size that runs past its end, or bytes left that are no sub-chunk.
    static func subchunks(of list: ChunkBytes) -> [(id: String, payload: ArraySlice<UInt8>)]? {
        var result: [(String, ArraySlice<UInt8>)] = []
        var offset = 4
        while offset + 8 <= list.count, let id = list.fourCC(at: offset), let size = list.u32(at: offset + 4) {
            let end = offset + 8 + Int(size)
            guard end <= list.count else { return nil }
            result.append((id, list.bytes[(offset + 8)..<end]))
            offset = end + Int(size & 1)
        }
        // A last pad byte may be missing; anything else left over is not a sub-chunk.
        return offset >= list.count || list.bytes[offset...].allSatisfy({ $0 == 0 }) ? result : nil
    }
}
