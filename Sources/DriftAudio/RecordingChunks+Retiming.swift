import DriftCore
import DriftSupport

/// What a repair did to a recording's time, for the chunks that name moments in it.
public struct ChunkRetiming: Sendable {
    /// Where the output's first sample lies in time.
    public enum Start: Sendable, Equatable {
        /// At this position of the recording (frames at its rate; negative where silence was put before it): the
        /// recording's own time stamps move by it.
        case recordingPosition(Int64)
        /// At this time of day, seconds since midnight (a clip's audio placed at the clip's start timecode).
        case timeOfDay(Rational)
    }

    /// Where each recording position lands in the output.
    public var map: FrameMap
    /// A cut of part of a recording (a clip's audio): marks outside the cut are left out, and the output is a new
    /// file (iXML FILE_UID) whose parent is the recording; otherwise marks in trimmed parts are kept at the nearest
    /// end.
    public var isCut: Bool
    public var inputRate: Int
    public var outputRate: Int
    public var start: Start
    /// The line the bext coding history (and iXML's copy of it) gains.
    public var history: String?
    /// The recording's file name (iXML HISTORY).
    public var sourceName: String
    /// Bits per sample of the output, where they differ from the recording's (iXML AUDIO_BIT_DEPTH).
    public var bitDepth: Int?

    public init(
        map: FrameMap, isCut: Bool = false, inputRate: Int, outputRate: Int, start: Start, history: String?,
        sourceName: String, bitDepth: Int? = nil
    ) {
        self.map = map
        self.isCut = isCut
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.start = start
        self.history = history
        self.sourceName = sourceName
        self.bitDepth = bitDepth
    }

    /// The output's first sample as samples since midnight at `newRate`, given the recording's first sample as `old`
    /// samples at `oldRate`: exact, rounded to the nearest sample, never before midnight.
    public func startSamples(recordingStart old: UInt64, countedAt oldRate: Int, newRate: Int) -> UInt64 {
        let result: Int128
        switch start {
        case .recordingPosition(let position):
            // old/oldRate + position/inputRate seconds, at newRate.
            let denominator = Int128(max(1, oldRate)) * Int128(max(1, inputRate))
            let numerator =
                (Int128(old) * Int128(inputRate) + Int128(position) * Int128(oldRate)) * Int128(newRate)
            result = Self.rounded(numerator, denominator)
        case .timeOfDay(let seconds):
            result = Self.rounded(
                Int128(seconds.numerator) * Int128(newRate), Int128(max(1, seconds.denominator)))
        }
        return UInt64(clamping: result)
    }

    private static func rounded(_ numerator: Int128, _ denominator: Int128) -> Int128 {
        numerator >= 0
            ? (2 * numerator + denominator) / (2 * denominator)
            : -((-2 * numerator + denominator) / (2 * denominator))
    }
}

extension RecordingChunks {
    /// The chunks for the repaired copy: markers, loops and sync points moved with the sound, the bext and iXML
    /// start times and history brought up to date; every other byte as it was. The notes say where a mark could not
    /// stay on its sound (a trimmed part, a filled dropout) and where a chunk could not be edited.
    public func retimed(_ retiming: ChunkRetiming) -> (chunks: RecordingChunks, notes: [String]) {
        var markers = MarkerRetimer(retiming: retiming, chunks: chunks)
        var notes: [String] = []
        func edit(_ chunk: Chunk, _ change: ([UInt8]) -> [UInt8]?) -> Chunk {
            guard let bytes = chunk.bytes else { return chunk }
            guard let changed = change(bytes) else {
                notes.append(
                    "\(chunk.id): not as its specification lays it out: carried unchanged, its times not moved")
                return chunk
            }
            return Chunk(id: chunk.id, bytes: changed)
        }
        var result = self
        // Cue points first: the labels, regions and playlists that name them follow where they went.
        result.update { $0.id == "cue " && family == .riff ? edit($0) { markers.cue($0) } : $0 }
        result.update { chunk in
            switch (family, chunk.id) {
            case (.riff, "LIST") where chunk.listType == "adtl":
                return edit(chunk) { markers.associatedData($0) }
            case (.riff, "smpl"): return edit(chunk) { markers.sampler($0) }
            case (.riff, "plst"): return edit(chunk) { markers.playlist($0) }
            case (.aiff, "MARK"): return edit(chunk) { markers.aiffMarkers($0) }
            case (.riff, "bext"): return edit(chunk) { broadcast($0, retiming) }
            case (_, "iXML"):
                guard let bytes = chunk.bytes else { return chunk }
                guard let changed = Self.ixml(bytes, retiming) else {
                    notes.append("iXML: not markup driftfix can follow: carried unchanged, its times not moved")
                    return chunk
                }
                return Chunk(id: chunk.id, bytes: changed)
            default:
                return chunk
            }
        }
        // A cut gets a time reference even where its recording had no bext, so that an editor's sync by timecode
        // places it at its clip.
        if retiming.isCut, family == .riff, case .timeOfDay = retiming.start, first("bext") == nil,
            let format = result.items.firstIndex(of: .format)
        {
            var bext = [UInt8](repeating: 0, count: 602)
            var fields = ChunkBytes(bext)
            fields.set(
                retiming.startSamples(recordingStart: 0, countedAt: 1, newRate: retiming.outputRate), at: 338, width: 8)
            fields.set(1, at: 346, width: 2)
            bext = fields.bytes + Array((retiming.history.map { $0 + "\r\n" } ?? "").utf8)
            result.items.insert(.chunk(Chunk(id: "bext", bytes: bext)), at: format + 1)
        }
        return (result, markers.notes + notes)
    }

    /// A `bext` payload (EBU Tech 3285) with its time reference moved and its coding history extended by one line;
    /// every other field, its version and any space the recorder reserved after the history kept. Nil when it is too
    /// short to hold its fixed fields.
    private func broadcast(_ payload: [UInt8], _ retiming: ChunkRetiming) -> [UInt8]? {
        let historyOffset = 602
        var fields = ChunkBytes(payload)
        guard payload.count >= historyOffset, let old = fields.u64(at: 338) else { return nil }
        let samples = retiming.startSamples(
            recordingStart: old, countedAt: retiming.inputRate, newRate: retiming.outputRate)
        fields.set(samples, at: 338, width: 8)
        guard let line = retiming.history else { return fields.bytes }
        let room = payload.count - historyOffset
        let history = Self.extendedHistory(Array(payload[historyOffset...].prefix { $0 != 0 }), line: line)
        return Array(fields.bytes[..<historyOffset]) + history
            + [UInt8](repeating: 0, count: max(0, room - history.count))
    }

    /// A coding history (as bytes: a recorder's may not be UTF-8) with every line ended by CR LF and `line` added.
    static func extendedHistory(_ history: [UInt8], line: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < history.count {
            let byte = history[index]
            if byte == 0x0D || byte == 0x0A {
                // A pair (CR LF or LF CR) is one line end.
                if index + 1 < history.count, [0x0D, 0x0A].contains(history[index + 1]), history[index + 1] != byte {
                    index += 1
                }
                result += [0x0D, 0x0A]
            } else {
                result.append(byte)
            }
            index += 1
        }
        if !result.isEmpty && !result.ends(with: [0x0D, 0x0A]) { result += [0x0D, 0x0A] }
        return result + Array(line.utf8) + [0x0D, 0x0A]
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
