import DriftAudio
import Foundation

/// A production sound recorder's Broadcast WAV (or AIFF), built byte by byte here, so that a test knows every byte of
/// it: `bext` (before the format chunk, as Sound Devices writes it), iXML with project, scene, take, tape, track names,
/// a timestamp and a sync point, cue points labelled in `LIST`/`adtl` with a labelled region, a `smpl` loop, `cart`,
/// `axml`, `LIST`/`INFO`, a `JUNK` reservation, and after the audio an ID3 tag, XMP and a vendor's own chunk.
///
/// The sound is a quiet tone with a click on every marker, so a test can find where the marked sound went.
public struct ProductionWave: Sendable {
    public struct Marker: Sendable, Equatable {
        public var id: UInt32
        public var frame: Int64
        public var label: String

        public init(id: UInt32, frame: Int64, label: String) {
            self.id = id
            self.frame = frame
            self.label = label
        }
    }

    public var sampleRate: Int
    public var frames: Int64
    /// One track (channel) per name, in iXML's TRACK_LIST.
    public var trackNames: [String]
    public var markers: [Marker]
    /// The first marker's labelled region (`ltxt`), frames.
    public var regionFrames: Int64 = 4800
    /// A sampler loop, start and inclusive end.
    public var loop: (start: Int64, end: Int64)?
    /// The first frame's time of day, samples since midnight (bext, iXML SPEED and its BEXT copy).
    public var timeReference: UInt64
    /// An iXML sync point, frames.
    public var syncPoint: Int64?
    public var project = "Night Ride"
    public var scene = "12A"
    public var take = "3"
    public var tape = "DAY04"
    public var fileUID = "SDV0001A2B3C4D5E6F"
    /// Bytes of a vendor chunk's payload (`zzzz`) after the audio.
    public var vendorBytes: [UInt8] = Array("vendor's own bytes, kept as they are".utf8)
    /// More chunks, before the audio (after the others) and after it.
    public var extraBefore: [(String, [UInt8])] = []
    public var extraAfter: [(String, [UInt8])] = []

    public init(
        sampleRate: Int = 48_000, seconds: Double = 10, trackNames: [String] = ["BOOM", "LAV 1"],
        markers: [Marker]? = nil, timeReference: UInt64 = 10 * 3600 * 48_000
    ) {
        self.sampleRate = sampleRate
        frames = Int64(seconds * Double(sampleRate))
        self.trackNames = trackNames
        self.markers =
            markers ?? [
                Marker(id: 1, frame: frames / 10, label: "clap"),
                Marker(id: 2, frame: frames / 2 + 17, label: "false start"),
            ]
        self.timeReference = timeReference
        loop = (frames / 4, frames / 4 + Int64(sampleRate) - 1)
        syncPoint = frames / 2 + 17
    }

    public var channels: Int { trackNames.count }

    /// The sound: a quiet tone on every channel, a click (0.9 of full scale, one sample) on every marker.
    public func sample(channel: Int, frame: Int64) -> Double {
        if markers.contains(where: { $0.frame == frame }) { return 0.9 }
        return 0.02 * sin(2 * .pi * 220 * Double(frame) / Double(sampleRate) + Double(channel))
    }

    // MARK: chunks

    /// The chunks in file order with their payloads: `fmt `/`COMM` and the audio marked by id, the rest as built.
    public func waveChunks(bits: Int = 24) -> (before: [(String, [UInt8])], after: [(String, [UInt8])]) {
        let before: [(String, [UInt8])] =
            [
                ("JUNK", [UInt8](repeating: 0, count: 28)),
                ("bext", bext()),
                ("fmt ", format(bits: bits)),
                ("iXML", Array(ixml().utf8)),
                ("cue ", cue()),
                ("LIST", associatedData()),
                ("smpl", sampler()),
                ("cart", cart()),
                ("axml", Array("<ebucore:ebuCoreMain xmlns:ebucore=\"urn:ebu:metadata-schema:ebucore\"/>".utf8)),
                (
                    "LIST",
                    Array("INFO".utf8) + Self.chunk("INAM", Array("Scene \(scene) take \(take)\0".utf8))
                        + Self.chunk("IENG", Array("Sound mixer\0".utf8))
                ),
            ] + extraBefore
        let after: [(String, [UInt8])] =
            [
                ("id3 ", Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]),
                ("_PMX", Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)),
                ("zzzz", vendorBytes),
            ] + extraAfter
        return (before, after)
    }

    /// The chunks a recorder adds to a file's sound, for a fixture that wrote the sound itself: iXML, cue points and
    /// their `adtl` labels.
    public func recorderChunks() -> [(String, [UInt8])] {
        [("iXML", Array(ixml().utf8)), ("cue ", cue()), ("LIST", associatedData())]
    }

    /// The whole Broadcast WAV with `bits`-bit samples (16 or 24); as RF64 (`ds64` in place of the `JUNK` kept for it,
    /// 64-bit sizes) when asked.
    public func wave(bits: Int = 24, rf64: Bool = false) -> [UInt8] {
        let (before, after) = waveChunks(bits: bits)
        let samples = audio(bits: bits, bigEndian: false)
        var body = Array("WAVE".utf8)
        // libsndfile 1.2 reads no RF64 file with an odd-sized chunk (it does not skip the pad byte): the RF64
        // recording's odd payloads get a trailing zero.
        func even(_ payload: [UInt8]) -> [UInt8] { rf64 && payload.count % 2 == 1 ? payload + [0] : payload }
        for (id, payload) in before {
            if rf64 && id == "JUNK" { continue }
            body += Self.chunk(id, even(payload))
        }
        body += Array("data".utf8) + (rf64 ? Self.le(0xFFFF_FFFF, 4) : Self.le(UInt64(samples.count), 4)) + samples
        if samples.count % 2 == 1 { body.append(0) }
        for (id, payload) in after { body += Self.chunk(id, even(payload)) }
        guard rf64 else { return Array("RIFF".utf8) + Self.le(UInt64(body.count), 4) + body }
        let ds64 =
            Self.le(UInt64(body.count + 36), 8) + Self.le(UInt64(samples.count), 8) + Self.le(UInt64(frames), 8)
            + Self.le(0, 4)
        let whole = Array("WAVE".utf8) + Self.chunk("ds64", ds64) + body.dropFirst(4)
        return Array("RF64".utf8) + Self.le(0xFFFF_FFFF, 4) + whole
    }

    /// The same recording as AIFF: COMM, MARK (the markers with their labels), NAME, ANNO, an application chunk,
    /// SSND, then an ID3 tag.
    public func aiff() -> [UInt8] {
        var marks = Self.be(UInt64(markers.count), 2)
        for marker in markers {
            let name = Array(marker.label.utf8)
            marks += Self.be(UInt64(marker.id), 2) + Self.be(UInt64(marker.frame), 4) + [UInt8(name.count)] + name
            if name.count % 2 == 0 { marks.append(0) }
        }
        let common =
            Self.be(UInt64(channels), 2) + Self.be(UInt64(frames), 4) + Self.be(24, 2) + Self.extended(sampleRate)
        let chunks: [(String, [UInt8])] = [
            ("COMM", common), ("MARK", marks), ("NAME", Array("Scene \(scene) take \(take)".utf8)),
            ("ANNO", Array("boom and lav".utf8)), ("APPL", Array("zzzz".utf8) + vendorBytes),
            ("SSND", [UInt8](repeating: 0, count: 8) + audio(bits: 24, bigEndian: true)),
            ("ID3 ", Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]),
        ]
        var body = Array("AIFF".utf8)
        for (id, payload) in chunks { body += Self.chunk(id, payload, bigEndian: true) }
        return Array("FORM".utf8) + Self.be(UInt64(body.count), 4) + body
    }

    public func write(to path: String, bits: Int = 24, rf64: Bool = false) throws {
        try Data(wave(bits: bits, rf64: rf64)).write(to: URL(fileURLWithPath: path))
    }

    public func writeAIFF(to path: String) throws {
        try Data(aiff()).write(to: URL(fileURLWithPath: path))
    }

    /// The iXML a recorder writes: tabs, CR LF line ends, a vendor's section driftfix does not know.
    public func ixml() -> String {
        let tracks = trackNames.enumerated().map { index, name in
            "\t\t<TRACK>\r\n\t\t\t<CHANNEL_INDEX>\(index + 1)</CHANNEL_INDEX>\r\n"
                + "\t\t\t<INTERLEAVE_INDEX>\(index + 1)</INTERLEAVE_INDEX>\r\n\t\t\t<NAME>\(name)</NAME>\r\n\t\t</TRACK>\r\n"
        }.joined()
        let sync =
            syncPoint.map {
                "\t<SYNC_POINT_LIST>\r\n\t\t<SYNC_POINT_COUNT>1</SYNC_POINT_COUNT>\r\n\t\t<SYNC_POINT>\r\n"
                    + "\t\t\t<SYNC_POINT_TYPE>RELATIVE</SYNC_POINT_TYPE>\r\n"
                    + "\t\t\t<SYNC_POINT_FUNCTION>SLATE_GENERIC</SYNC_POINT_FUNCTION>\r\n"
                    + "\t\t\t<SYNC_POINT_LOW>\($0)</SYNC_POINT_LOW>\r\n\t\t\t<SYNC_POINT_HIGH>0</SYNC_POINT_HIGH>\r\n"
                    + "\t\t</SYNC_POINT>\r\n\t</SYNC_POINT_LIST>\r\n"
            } ?? ""
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<BWFXML>\r\n\t<IXML_VERSION>2.10</IXML_VERSION>\r\n"
            + "\t<PROJECT>\(project)</PROJECT>\r\n\t<SCENE>\(scene)</SCENE>\r\n\t<TAKE>\(take)</TAKE>\r\n"
            + "\t<TAPE>\(tape)</TAPE>\r\n\t<CIRCLED>TRUE</CIRCLED>\r\n\t<FILE_UID>\(fileUID)</FILE_UID>\r\n"
            + "\t<NOTE>boom &amp; lav</NOTE>\r\n\t<SPEED>\r\n\t\t<MASTER_SPEED>25/1</MASTER_SPEED>\r\n"
            + "\t\t<TIMECODE_RATE>25/1</TIMECODE_RATE>\r\n\t\t<TIMECODE_FLAG>NDF</TIMECODE_FLAG>\r\n"
            + "\t\t<FILE_SAMPLE_RATE>\(sampleRate)</FILE_SAMPLE_RATE>\r\n\t\t<AUDIO_BIT_DEPTH>24</AUDIO_BIT_DEPTH>\r\n"
            + "\t\t<TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>\(timeReference >> 32)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>\r\n"
            + "\t\t<TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\(timeReference & 0xFFFF_FFFF)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\r\n"
            + "\t\t<TIMESTAMP_SAMPLE_RATE>\(sampleRate)</TIMESTAMP_SAMPLE_RATE>\r\n\t</SPEED>\r\n"
            + "\t<TRACK_LIST>\r\n\t\t<TRACK_COUNT>\(channels)</TRACK_COUNT>\r\n" + tracks + "\t</TRACK_LIST>\r\n" + sync
            + "\t<BEXT>\r\n\t\t<BWF_ORIGINATOR>Sound Devices</BWF_ORIGINATOR>\r\n"
            + "\t\t<BWF_TIME_REFERENCE_LOW>\(timeReference & 0xFFFF_FFFF)</BWF_TIME_REFERENCE_LOW>\r\n"
            + "\t\t<BWF_TIME_REFERENCE_HIGH>\(timeReference >> 32)</BWF_TIME_REFERENCE_HIGH>\r\n\t</BEXT>\r\n"
            + "\t<USER>\r\n\t\t<VENDOR_SETTING>LIM ON</VENDOR_SETTING>\r\n\t</USER>\r\n</BWFXML>\r\n"
            // Recorders leave room to edit the chunk in place.
            + String(repeating: " ", count: 64)
    }

    private func bext() -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: 602)
        func put(_ text: String, at offset: Int) {
            for (index, byte) in text.utf8.enumerated() { payload[offset + index] = byte }
        }
        put("sSCENE=\(scene)\r\nsTAKE=\(take)\r\nsTAPE=\(tape)\r\n", at: 0)
        put("Sound Devices", at: 256)
        put("USSDVA0000001", at: 288)
        put("2026-11-21", at: 320)
        put("14:03:27", at: 330)
        payload.replaceSubrange(338..<346, with: Self.le(timeReference, 8))
        payload.replaceSubrange(346..<348, with: Self.le(1, 2))
        for index in 0..<64 { payload[348 + index] = UInt8(index) }
        // A coding history, then zeros the recorder reserved for more.
        return payload + Array("A=PCM,F=\(sampleRate),W=24,M=stereo,T=Sound Devices 833\r\n".utf8)
            + [UInt8](repeating: 0, count: 40)
    }

    private func format(bits: Int) -> [UInt8] {
        let align = channels * bits / 8
        return Self.le(1, 2) + Self.le(UInt64(channels), 2) + Self.le(UInt64(sampleRate), 4)
            + Self.le(UInt64(sampleRate * align), 4) + Self.le(UInt64(align), 2) + Self.le(UInt64(bits), 2)
    }

    private func cue() -> [UInt8] {
        var payload = Self.le(UInt64(markers.count), 4)
        for marker in markers {
            payload +=
                Self.le(UInt64(marker.id), 4) + Self.le(UInt64(marker.frame), 4) + Array("data".utf8)
                + Self.le(0, 4) + Self.le(0, 4) + Self.le(UInt64(marker.frame), 4)
        }
        return payload
    }

    private func associatedData() -> [UInt8] {
        var payload = Array("adtl".utf8)
        for marker in markers {
            payload += Self.chunk("labl", Self.le(UInt64(marker.id), 4) + Array(marker.label.utf8) + [0])
        }
        if let first = markers.first {
            payload += Self.chunk("note", Self.le(UInt64(first.id), 4) + Array("slate visible".utf8) + [0])
            payload += Self.chunk(
                "ltxt",
                Self.le(UInt64(first.id), 4) + Self.le(UInt64(regionFrames), 4) + Array("rgn ".utf8)
                    + [UInt8](repeating: 0, count: 8) + Array("clap region".utf8) + [0])
        }
        return payload
    }

    private func sampler() -> [UInt8] {
        let period = UInt64(1_000_000_000 / sampleRate)
        var payload = Self.le(0, 4) + Self.le(0, 4) + Self.le(period, 4) + Self.le(60, 4) + Self.le(0, 4)
        payload += Self.le(0, 4) + Self.le(0, 4) + Self.le(loop == nil ? 0 : 1, 4) + Self.le(0, 4)
        if let loop {
            payload +=
                Self.le(7, 4) + Self.le(0, 4) + Self.le(UInt64(loop.start), 4) + Self.le(UInt64(loop.end), 4)
                + Self.le(0, 4) + Self.le(0, 4)
        }
        return payload
    }

    private func cart() -> [UInt8] {
        // Version, title, artist, then the rest of the cart chunk's fixed fields left empty.
        var payload = Array("0101".utf8) + [UInt8](repeating: 0, count: 2044)
        for (index, byte) in "Scene \(scene)".utf8.enumerated() { payload[4 + index] = byte }
        return payload
    }

    /// Interleaved samples, little- or big-endian.
    private func audio(bits: Int, bigEndian: Bool) -> [UInt8] {
        let bytes = bits / 8
        let scale = Double(1 << (bits - 1))
        var out: [UInt8] = []
        out.reserveCapacity(Int(frames) * channels * bytes)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let value = Int64((sample(channel: channel, frame: frame) * scale).rounded())
                let clamped = UInt64(bitPattern: max(-Int64(scale), min(Int64(scale) - 1, value)))
                out += bigEndian ? Self.be(clamped, bytes) : Self.le(clamped, bytes)
            }
        }
        return out
    }

    // MARK: bytes

    static func chunk(_ id: String, _ payload: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        Array(id.utf8) + (bigEndian ? be(UInt64(payload.count), 4) : le(UInt64(payload.count), 4)) + payload
            + (payload.count % 2 == 1 ? [0] : [])
    }

    public static func le(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8((value >> (8 * $0)) & 0xFF) }
    }
    static func be(_ value: UInt64, _ width: Int) -> [UInt8] { le(value, width).reversed() }

    /// A sample rate as AIFF's 80-bit extended number.
    static func extended(_ rate: Int) -> [UInt8] {
        var exponent = 16383 + 63
        var mantissa = UInt64(rate)
        while mantissa & (1 << 63) == 0 {
            mantissa <<= 1
            exponent -= 1
        }
        return be(UInt64(exponent), 2) + be(mantissa, 8)
    }
}

extension ProductionWave {
    /// Where the click nearest `frame` (within `radius` frames) lies in `path`'s first channel, to a fraction of a
    /// frame: the largest magnitude, refined by a parabola through it and its neighbours. nil when the file cannot be
    /// read there.
    public static func click(in path: String, near frame: Int64, radius: Int64 = 96) -> Double? {
        guard let reader = try? AudioFileReader(path: path) else { return nil }
        let start = max(0, frame - radius)
        let count = Int(min(reader.frameCount, frame + radius + 1) - start)
        guard count > 2 else { return nil }
        var samples = [Float](repeating: 0, count: count * reader.channelCount)
        do {
            try reader.seek(toFrame: start)
            var got = 0
            while got < count {
                let read = try samples.withUnsafeMutableBufferPointer {
                    try reader.read(into: $0.baseAddress! + got * reader.channelCount, frames: count - got)
                }
                if read == 0 { break }
                got += read
            }
        } catch {
            return nil
        }
        let first = (0..<count).map { Double(abs(samples[$0 * reader.channelCount])) }
        guard let peak = first.indices.max(by: { first[$0] < first[$1] }) else { return nil }
        var offset = 0.0
        if peak > 0, peak < count - 1 {
            let (a, b, c) = (first[peak - 1], first[peak], first[peak + 1])
            let curve = a - 2 * b + c
            if curve != 0 { offset = 0.5 * (a - c) / curve }
        }
        return Double(start) + Double(peak) + offset
    }
}
