import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

/// Every chunk a recorder wrote, through every kind of repair: carried in its order byte for byte, changed only where
/// the repair changed time, checked against the bytes the test built and against where the marked sound really went.
@Suite("Chunks a recorder wrote, through the repair")
struct ChunkCarryTests {
    /// The chunks the repair must leave exactly as they were.
    static let untouched = ["JUNK", "fmt ", "cart", "axml", "id3 ", "_PMX", "zzzz"]

    /// `expected` rounded to the nearest frame from `frame × output / input` (the linear map of a length change),
    /// computed apart from the code under test.
    static func scaled(_ frame: Int64, _ output: Int64, _ input: Int64) -> Int64 {
        Int64((Double(frame) * Double(output) / Double(input)).rounded())
    }

    @Test(
        "a drift repair (±200 ppm) carries every chunk in order; markers, region, loop and sync point move onto their sound",
        arguments: [200, -200])
    func driftRepair(ppm: Int) throws {
        let folder = TemporaryFolder()
        let recording = ProductionWave(seconds: 10)
        let input = folder.file("take.wav")
        try recording.write(to: input)
        let original = try ChunkFile(path: input)
        let target = recording.frames + recording.frames * Int64(ppm) / 1_000_000
        let result = try FileProcessor.run(
            ProcessRequest(input: input, output: folder.file("out.wav"), target: .frames(target)))
        #expect(result.outputFrames == target)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let out = try ChunkFile(path: folder.file("out.wav"))
        #expect(out.ids == original.ids, "the same chunks in the same order")
        for id in Self.untouched { #expect(out.chunk(id) == original.chunk(id), "\(id) byte for byte") }
        #expect(out.chunk("LIST", list: "INFO") == original.chunk("LIST", list: "INFO"))

        // bext: every field as it was, the history one line longer.
        let bext = try #require(out.chunk("bext")?.payload)
        let was = try #require(original.chunk("bext")?.payload)
        #expect(bext[0..<602] == was[0..<602])
        #expect(out.codingHistory?.hasPrefix(try #require(original.codingHistory)) == true)
        #expect(out.codingHistory?.hasSuffix("\(recording.frames) to \(target) frames\r\n") == true)
        // The room the recorder reserved after its history is used before the chunk grows.
        #expect(bext.count == max(was.count, 602 + (out.codingHistory?.utf8.count ?? 0)))

        // Markers: each on its click, within a frame, where the linear map puts it.
        let points = out.cuePoints
        #expect(points.count == recording.markers.count)
        for (point, marker) in zip(points, recording.markers) {
            let expected = Self.scaled(marker.frame, target, recording.frames)
            #expect(Int64(point.sampleOffset) == expected && point.position == point.sampleOffset)
            let click = try #require(ProductionWave.click(in: folder.file("out.wav"), near: expected))
            #expect(abs(click - Double(point.sampleOffset)) <= 1, "marker \(marker.label): click at \(click)")
        }
        // Labels as they were; the region's length moved with it.
        let labels = out.associatedData
        #expect(labels.filter { $0.id == "labl" }.map(\.cue) == recording.markers.map(\.id))
        let region = try #require(labels.first { $0.id == "ltxt" })
        let first = recording.markers[0].frame
        let regionLength = UInt32(ChunkFile.integer(region.rest[0..<4], bigEndian: false))
        #expect(
            Int64(regionLength)
                == Self.scaled(first + recording.regionFrames, target, recording.frames)
                - Self.scaled(first, target, recording.frames))
        let loop = try #require(recording.loop)
        #expect(
            out.loops.first.map { [Int64($0.start), Int64($0.end)] }
                == [
                    Self.scaled(loop.start, target, recording.frames),
                    Self.scaled(loop.end + 1, target, recording.frames) - 1,
                ])

        // iXML: what the recorder wrote, as it wrote it; the sync point moved; the history says where it came from.
        for name in ["PROJECT", "SCENE", "TAKE", "TAPE", "NOTE", "FILE_UID", "VENDOR_SETTING", "NAME", "CIRCLED"] {
            #expect(out.ixmlValues(name) == original.ixmlValues(name), "\(name)")
        }
        #expect(
            out.ixmlValues("SYNC_POINT_LOW") == ["\(Self.scaled(recording.syncPoint ?? 0, target, recording.frames))"])
        #expect(
            out.ixmlValues("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO")
                == original.ixmlValues("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO"))
        #expect(out.ixmlValues("PARENT_FILENAME") == ["take.wav"])
        #expect(out.ixmlValues("PARENT_UID") == [recording.fileUID])
        #expect(out.ixmlValues("ORIGINAL_FILENAME") == ["take.wav"])
        // Nothing else in the text changed: without the history and the moved sync point it is the recorder's.
        let text = try #require(out.ixml)
        let history = try #require(text.range(of: "\r\n\t<HISTORY>"))
        let end = try #require(text.range(of: "</HISTORY>"))
        var restored = text.replacingCharacters(in: history.lowerBound..<end.upperBound, with: "")
        restored = restored.replacingOccurrences(
            of: ">\(Self.scaled(recording.syncPoint ?? 0, target, recording.frames))<",
            with: ">\(recording.syncPoint ?? 0)<")
        #expect(restored == recording.ixml())
    }

    @Test(
        "a late start trimmed and a dropout re-inserted: markers stay on their sound; one in the trimmed start and one at the loss are said"
    )
    func contentOperations() throws {
        let folder = TemporaryFolder()
        var recording = ProductionWave(seconds: 8)
        let (trim, insertAt, lost) = (Int64(9600), Int64(200_000), Int64(960))
        recording.markers = [
            .init(id: 1, frame: 4800, label: "before the start"), .init(id: 2, frame: 96_000, label: "clap"),
            .init(id: 3, frame: insertAt, label: "at the loss"), .init(id: 4, frame: 300_000, label: "late"),
        ]
        recording.syncPoint = nil
        let input = folder.file("late.wav")
        try recording.write(to: input)
        let stream = recording.frames - trim + lost
        let target = stream + stream * 120 / 1_000_000
        var request = ProcessRequest(input: input, output: folder.file("out.wav"), target: nil)
        request.operations = [
            .trimStart(frames: trim), .insert(atFrame: insertAt, frames: lost), .resample(frames: target),
        ]
        let result = try FileProcessor.run(request)
        #expect(result.outputFrames == target)

        let out = try ChunkFile(path: folder.file("out.wav"))
        // The truth, computed here: the trim, the sound put back at the loss, the rate.
        func expected(_ frame: Int64) -> Int64 {
            let kept = max(0, frame - trim) + (frame >= insertAt ? lost : 0)
            return Self.scaled(kept, target, stream)
        }
        let points = Dictionary(uniqueKeysWithValues: out.cuePoints.map { ($0.id, Int64($0.sampleOffset)) })
        for marker in recording.markers {
            #expect(points[marker.id] == expected(marker.frame), "\(marker.label)")
            guard marker.frame >= trim else { continue }
            let click = try #require(ProductionWave.click(in: folder.file("out.wav"), near: expected(marker.frame)))
            #expect(abs(click - Double(expected(marker.frame))) <= 1, "\(marker.label): click at \(click)")
        }
        #expect(points[1] == 0, "a marker in the trimmed start is kept at the output's first frame")
        #expect(result.warnings.count == 2, "\(result.warnings)")
        #expect(result.warnings.contains { $0.contains("\"before the start\"") && $0.contains("trimmed start") })
        #expect(result.warnings.contains { $0.contains("\"at the loss\"") && $0.contains("lost sound") })
        // The time stamps moved by the trim: the output starts 0.2 s later in the day.
        #expect(out.timeReference == recording.timeReference + UInt64(trim))
        #expect(out.ixmlValues("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO") == ["\(recording.timeReference + UInt64(trim))"])
        #expect(out.ixmlValues("BWF_TIME_REFERENCE_LOW") == ["\(recording.timeReference + UInt64(trim))"])
    }

    /// WSOLA splices sound a few milliseconds off its linear map, and each marker follows it there; the phase vocoder
    /// puts every click on the map itself, to the sample.
    @Test(
        "a stretch: each marker on its click, where the stretcher really put it", arguments: StretchEngine.allCases)
    func stretch(engine: StretchEngine) throws {
        let folder = TemporaryFolder()
        var recording = ProductionWave(seconds: 6)
        recording.markers = (1...8).map {
            .init(id: UInt32($0), frame: Int64($0) * 33_000 + Int64($0 * $0), label: "m\($0)")
        }
        let input = folder.file("s.wav")
        try recording.write(to: input)
        for target in [recording.frames * 103 / 100, recording.frames * 3 / 4] {
            var request = ProcessRequest(
                input: input, output: folder.file("out.wav"), target: .frames(target),
                method: MethodChoice(method: .stretch, reason: "test"), replacing: .regularFile)
            request.stretch = engine == .wsola ? .wsola : .vocoder
            let result = try FileProcessor.run(request)
            #expect(result.outputFrames == target)
            #expect(result.method.contains("by \(engine.shownName)"), "\(result.method)")
            let out = try ChunkFile(path: folder.file("out.wav"))
            var offMap = 0.0
            for (point, marker) in zip(out.cuePoints, recording.markers) {
                let linear = Self.scaled(marker.frame, target, recording.frames)
                let click = try #require(ProductionWave.click(in: folder.file("out.wav"), near: linear, radius: 400))
                #expect(
                    abs(click - Double(point.sampleOffset)) <= 1,
                    "\(marker.label): click at \(click), marker \(point.sampleOffset)")
                offMap = max(offMap, abs(click - Double(linear)))
            }
            switch engine {
            case .wsola:
                // The test would not tell anything if the linear map were already on the sound.
                #expect(offMap > 2, "the stretch moved sound off the linear map by \(offMap) frames")
            case .vocoder:
                #expect(offMap <= 1, "a click \(offMap) frames off the linear map")
            }
        }
    }

    @Test(
        "a cut (a clip's audio): marks outside it left out with their labels, its time stamps at the clip's start, a file of its own"
    )
    func cut() throws {
        let folder = TemporaryFolder()
        let recording = ProductionWave(seconds: 10)
        let input = folder.file("roll.wav")
        try recording.write(to: input)
        let original = try ChunkFile(path: input)
        // Frames 200,000 to 400,000 of the recording: the second marker and the sync point are inside, the first not.
        var request = ProcessRequest(input: input, output: folder.file("clip.wav"), target: nil)
        request.operations = [.trimStart(frames: 200_000), .trimEnd(frames: recording.frames - 400_000)]
        request.isCut = true
        // The clip's start timecode: 10:20:30:12 at 25 fps.
        let start = Rational(((10 * 60 + 20) * 60 + 30) * 25 + 12, 25)
        request.startTime = start
        let result = try FileProcessor.run(request)
        #expect(result.outputFrames == 200_000)
        #expect(result.warnings.isEmpty, "outside a cut is not a loss: \(result.warnings)")
        let out = try ChunkFile(path: folder.file("clip.wav"))
        let inside = recording.markers[1]
        #expect(out.cuePoints.map(\.id) == [inside.id])
        #expect(out.cuePoints.first.map { Int64($0.sampleOffset) } == inside.frame - 200_000)
        #expect(
            out.associatedData.allSatisfy { $0.cue == inside.id }, "the outside marker's label, note and region go too")
        #expect(out.loops.isEmpty, "the loop lay outside the cut")
        #expect(out.ixmlValues("SYNC_POINT_LOW") == ["\((recording.syncPoint ?? 0) - 200_000)"])
        // 37,230.48 s after midnight, in samples at 48 kHz: exactly the clip's start.
        let samples = UInt64(start.numerator) * 48_000 / UInt64(start.denominator)
        #expect(out.timeReference == samples)
        #expect(out.ixmlValues("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO") == ["\(samples)"])
        #expect(out.ixmlValues("BWF_TIME_REFERENCE_LOW") == ["\(samples)"])
        #expect(out.ixmlValues("PARENT_UID") == [recording.fileUID])
        let uid = try #require(out.ixmlValues("FILE_UID").first)
        #expect(uid != recording.fileUID, "a cut is a file of its own")
        for name in ["SCENE", "TAKE", "TAPE", "PROJECT", "NAME"] {
            #expect(out.ixmlValues(name) == original.ixmlValues(name), "\(name)")
        }
    }

    @Test("AIFF: markers moved, every other chunk carried in order")
    func aiff() throws {
        let folder = TemporaryFolder()
        let recording = ProductionWave(seconds: 4)
        let input = folder.file("take.aif")
        try recording.writeAIFF(to: input)
        let original = try ChunkFile(path: input)
        let target = recording.frames + 400
        let result = try FileProcessor.run(
            ProcessRequest(input: input, output: folder.file("out.aif"), target: .frames(target)))
        #expect(result.outputFrames == target)
        let out = try ChunkFile(path: folder.file("out.aif"))
        #expect(out.ids == original.ids)
        for id in ["NAME", "ANNO", "APPL", "ID3 "] { #expect(out.chunk(id) == original.chunk(id), "\(id)") }
        let markers = out.aiffMarkers
        #expect(markers.map(\.name) == recording.markers.map(\.label))
        for (found, marker) in zip(markers, recording.markers) {
            let expected = Self.scaled(marker.frame, target, recording.frames)
            #expect(Int64(found.position) == expected)
            let click = try #require(ProductionWave.click(in: folder.file("out.aif"), near: expected))
            #expect(abs(click - Double(expected)) <= 1)
        }
    }

    @Test("RF64 stays RF64 with its chunks; a large chunk is copied from the file, not held")
    func rf64() throws {
        let folder = TemporaryFolder()
        var recording = ProductionWave(seconds: 3)
        // 3 MiB of a vendor's data: beyond what is held in memory, so copied by its range.
        recording.extraAfter = [("bigv", (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })]
        let input = folder.file("long.wav")
        try recording.write(to: input, rf64: true)
        let original = try ChunkFile(path: input)
        #expect(original.container == "RF64")
        let result = try FileProcessor.run(
            ProcessRequest(input: input, output: folder.file("out.wav"), target: .frames(recording.frames - 100)))
        #expect(result.outputFrames == recording.frames - 100)
        let out = try ChunkFile(path: folder.file("out.wav"))
        #expect(out.container == "RF64")
        #expect(out.ids == original.ids)
        #expect(out.chunk("bigv") == original.chunk("bigv"))
        #expect(out.chunk("zzzz") == original.chunk("zzzz"))

        // A WAV written as RF64: odd-sized chunks with their pad bytes, as RIFF lays them out (libsndfile, whose RF64
        // reader does not skip a pad byte, reads it back through the view without them); every chunk byte for byte.
        let wave = ProductionWave(seconds: 2)
        try wave.write(to: folder.file("short.wav"))
        let source = try ChunkFile(path: folder.file("short.wav"))
        #expect(source.chunks.contains { $0.size % 2 == 1 }, "the test needs an odd-sized chunk")
        _ = try FileProcessor.run(
            ProcessRequest(
                input: folder.file("short.wav"), output: folder.file("long.rf64"), target: .frames(wave.frames),
                outputType: .rf64))
        let promoted = try ChunkFile(path: folder.file("long.rf64"))
        #expect(promoted.container == "RF64")
        #expect(promoted.ids == ["ds64"] + source.ids.filter { $0 != "JUNK" }, "the JUNK kept for a ds64 became it")
        for chunk in source.chunks where !["data", "bext", "iXML", "JUNK"].contains(chunk.id) {
            let carried = try #require(
                promoted.chunk(
                    chunk.id, list: chunk.id == "LIST" ? String(decoding: chunk.payload.prefix(4), as: UTF8.self) : nil)
            )
            #expect(carried.payload == chunk.payload, "\(chunk.id)")
        }
    }

    @Test("a type that has no place for a chunk: each one named, nothing else lost")
    func conversion() throws {
        let folder = TemporaryFolder()
        var recording = ProductionWave(seconds: 2)
        recording.extraBefore = [("PEAK", [UInt8](repeating: 1, count: 24))]
        let input = folder.file("take.wav")
        try recording.write(to: input)
        let result = try FileProcessor.run(
            ProcessRequest(
                input: input, output: folder.file("out.flac"), target: .frames(recording.frames + 10),
                outputType: .flac))
        let warnings = result.warnings.joined(separator: "\n")
        for name in ["iXML", "cue", "LIST/adtl", "smpl", "cart", "axml", "id3", "_PMX", "zzzz"] {
            #expect(warnings.contains(name), "\(name) named")
        }
        #expect(!warnings.contains("JUNK"), "space a recorder reserved is not a loss")
        #expect(warnings.contains("PEAK: its peak values describe the samples before the repair"))
        // Same family: carried, and PEAK still said.
        let wav = try FileProcessor.run(
            ProcessRequest(input: input, output: folder.file("out.wav"), target: .frames(recording.frames + 10)))
        #expect(wav.warnings == ["PEAK: its peak values describe the samples before the repair"])
        #expect(try ChunkFile(path: folder.file("out.wav")).chunk("PEAK") == nil)
    }
}
