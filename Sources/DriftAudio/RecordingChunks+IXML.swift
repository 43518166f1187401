import DriftCore
import DriftSupport

extension RecordingChunks {
    /// An iXML chunk for the repaired copy. Only what the repair changed is changed, each in place:
    ///
    /// - `SPEED/TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI/LO` (at `TIMESTAMP_SAMPLE_RATE`, else the file's rate) and the
    ///   `BEXT` copy's `BWF_TIME_REFERENCE_LOW/HIGH`: the output's start;
    /// - `SPEED/FILE_SAMPLE_RATE` and `AUDIO_BIT_DEPTH` where the output's differ;
    /// - the `BEXT` copy's `BWF_CODING_HISTORY`: the same line as the bext chunk's;
    /// - `SYNC_POINT_LIST`: each point's `SYNC_POINT_LOW/HIGH` and `SYNC_POINT_EVENT_DURATION` moved with the sound
    ///   (points outside a cut left out, `SYNC_POINT_COUNT` to match); `PRE_RECORD_SAMPLECOUNT` likewise;
    /// - `HISTORY`: `PARENT_FILENAME` the recording's name, `PARENT_UID` its `FILE_UID`, `ORIGINAL_FILENAME` added
    ///   where missing;
    /// - a cut's `FILE_UID`: a new one (the cut is a file of its own), derived from the recording's and the cut.
    ///
    /// Everything else - scene, take, tape, track names, notes, vendors' elements, white space - is kept as written.
    /// Nil when the chunk is not markup this can follow.
    static func ixml(_ bytes: [UInt8], _ retiming: ChunkRetiming) -> [UInt8]? {
        guard var document = IXMLDocument(bytes) else { return nil }
        retimeSpeed(&document, retiming)
        retimeBEXT(&document, retiming)
        moveSyncPoints(&document, retiming)
        recordOrigin(&document, retiming)
        return document.bytes
    }

    /// `SPEED`: the start's timestamp, and the rate and depth where the output's differ.
    private static func retimeSpeed(_ document: inout IXMLDocument, _ retiming: ChunkRetiming) {
        guard let speed = document.element(["SPEED"]) else { return }
        let low = "TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO"
        let high = "TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI"
        // A stated timestamp rate stays; without one the count is at the file's rate, which may change.
        let stated = document.number(speed.children.first { $0.name == "TIMESTAMP_SAMPLE_RATE" }).map { Int($0) }
        if let old = document.pair(speed, low: low, high: high) {
            let samples = retiming.startSamples(
                recordingStart: old, countedAt: stated ?? retiming.inputRate,
                newRate: stated ?? retiming.outputRate)
            document.setPair(speed, low: low, high: high, to: samples)
        }
        if retiming.inputRate != retiming.outputRate,
            let rate = speed.children.first(where: { $0.name == "FILE_SAMPLE_RATE" })
        {
            document.setValue(String(retiming.outputRate), of: rate)
        }
        if let bits = retiming.bitDepth, let depth = speed.children.first(where: { $0.name == "AUDIO_BIT_DEPTH" }) {
            document.setValue(String(bits), of: depth)
        }
    }

    /// The `BEXT` copy: its time reference, and its coding history extended as the bext chunk's is.
    private static func retimeBEXT(_ document: inout IXMLDocument, _ retiming: ChunkRetiming) {
        guard let bext = document.element(["BEXT"]) else { return }
        let low = "BWF_TIME_REFERENCE_LOW"
        let high = "BWF_TIME_REFERENCE_HIGH"
        if let old = document.pair(bext, low: low, high: high) {
            let samples = retiming.startSamples(
                recordingStart: old, countedAt: retiming.inputRate, newRate: retiming.outputRate)
            document.setPair(bext, low: low, high: high, to: samples)
        }
        if let line = retiming.history,
            let history = bext.children.first(where: { $0.name == "BWF_CODING_HISTORY" })
        {
            let old = document.value(of: history) ?? ""
            let extended = extendedHistory(Array(old.utf8), line: line)
            document.setValue(String(decoding: extended, as: UTF8.self), of: history)
        }
    }

    /// Sync points, and the pre-roll count, move with the sound; a cut leaves out the points it trimmed.
    private static func moveSyncPoints(_ document: inout IXMLDocument, _ retiming: ChunkRetiming) {
        var removed = 0
        for point in document.elements(["SYNC_POINT_LIST", "SYNC_POINT"]) {
            guard let position = document.pair(point, low: "SYNC_POINT_LOW", high: "SYNC_POINT_HIGH") else { continue }
            let (placed, placement) = retiming.map.map(Int64(clamping: position))
            if placement == .trimmed && retiming.isCut {
                document.remove(point)
                removed += 1
                continue
            }
            document.setPair(point, low: "SYNC_POINT_LOW", high: "SYNC_POINT_HIGH", to: UInt64(max(0, placed)))
            if let duration = point.children.first(where: { $0.name == "SYNC_POINT_EVENT_DURATION" }),
                let length = document.number(duration)
            {
                let mapped = retiming.map.mapLength(from: Int64(clamping: position), length: Int64(clamping: length))
                document.setValue(String(max(0, mapped)), of: duration)
            }
        }
        if removed > 0, let list = document.element(["SYNC_POINT_LIST"]),
            let count = list.children.first(where: { $0.name == "SYNC_POINT_COUNT" }), let old = document.number(count)
        {
            document.setValue(String(old - min(old, UInt64(removed))), of: count)
        }
        for preRoll in allElements(named: "PRE_RECORD_SAMPLECOUNT", in: document.root) {
            guard let old = document.number(preRoll) else { continue }
            let (placed, placement) = retiming.map.map(Int64(clamping: old))
            let kept = placement == .trimmed && Int64(clamping: old) < retiming.map.kept.lowerBound ? 0 : placed
            document.setValue(String(max(0, kept)), of: preRoll)
        }
    }

    /// Where the file came from: `HISTORY`'s parent name and UID, and a cut's own `FILE_UID`.
    private static func recordOrigin(_ document: inout IXMLDocument, _ retiming: ChunkRetiming) {
        let uid = document.element(["FILE_UID"]).flatMap { document.value(of: $0) }
        if retiming.isCut, let element = document.element(["FILE_UID"]) {
            document.setValue(cutUID(parent: uid ?? PathText.shown(retiming.sourceName), retiming), of: element)
        }
        var history: [(String, String)] = [("PARENT_FILENAME", PathText.shown(retiming.sourceName))]
        if let uid, !uid.isEmpty { history.append(("PARENT_UID", uid)) }
        if let element = document.element(["HISTORY"]) {
            if !element.children.contains(where: { $0.name == "ORIGINAL_FILENAME" }) {
                document.insert(
                    "<ORIGINAL_FILENAME>\(IXMLText.escaped(PathText.shown(retiming.sourceName)))</ORIGINAL_FILENAME>",
                    into: element)
            }
            for (name, value) in history { document.set(name, to: value, in: element) }
        } else {
            let fields = [("ORIGINAL_FILENAME", PathText.shown(retiming.sourceName))] + history
            document.insert(
                "<HISTORY>" + fields.map { "<\($0.0)>\(IXMLText.escaped($0.1))</\($0.0)>" }.joined() + "</HISTORY>",
                into: document.root)
        }
    }

    private static func allElements(named name: String, in element: IXMLDocument.Element) -> [IXMLDocument.Element] {
        element.children.flatMap { ($0.name == name ? [$0] : []) + allElements(named: name, in: $0) }
    }

    /// A cut's own FILE_UID: the same for the same cut of the same recording (a night that cuts it again writes the
    /// same file), different for every other.
    private static func cutUID(parent: String, _ retiming: ChunkRetiming) -> String {
        var hash = FNV1a64()
        Array(parent.utf8).withUnsafeBytes { hash.update($0) }
        let cut = [
            retiming.map.kept.lowerBound, retiming.map.kept.upperBound, retiming.map.leadingFrames,
            retiming.map.outputFrames,
        ]
        for value in cut { withUnsafeBytes(of: value.littleEndian) { hash.update($0) } }
        let digits = String(hash.value, radix: 16, uppercase: true)
        return "DRIFTFIX" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension IXMLDocument {
    /// The element's text as a count; nil where it is missing or not one.
    fileprivate func number(_ element: Element?) -> UInt64? {
        element.flatMap { value(of: $0) }.flatMap { UInt64($0) }
    }

    /// The 64-bit count of a LO/HI pair in `parent`; nil where the low half is missing or either half is too large.
    fileprivate func pair(_ parent: Element, low: String, high: String) -> UInt64? {
        guard let lo = number(parent.children.first { $0.name == low }), lo <= UInt64(UInt32.max) else {
            return nil
        }
        let hi = number(parent.children.first { $0.name == high }) ?? 0
        return hi <= UInt64(UInt32.max) ? hi << 32 | lo : nil
    }

    /// Writes a 64-bit count into a LO/HI pair where the pair is there.
    fileprivate mutating func setPair(_ parent: Element, low: String, high: String, to value: UInt64) {
        guard let lowElement = parent.children.first(where: { $0.name == low }) else { return }
        setValue(String(value & 0xFFFF_FFFF), of: lowElement)
        if let highElement = parent.children.first(where: { $0.name == high }) {
            setValue(String(value >> 32), of: highElement)
        } else if value >> 32 != 0 {
            insert("<\(high)>\(value >> 32)</\(high)>", into: parent)
        }
    }
}
