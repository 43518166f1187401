import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftMedia

private func duration(_ boxes: [Box], fallback: Bool = false) throws -> (Rational, String) {
    let info = try MovieParser.parse(MemoryBytes(boxes.flatMap(\.bytes)))
    return try info.presentationDuration(movieHeaderFallback: fallback).get()
}

/// A movie box: its movie header, then the tracks and other boxes under it.
private func movieBox(timescale: UInt32, duration: UInt64, _ children: Box...) -> Box {
    Box("moov", children: [Boxes.mvhd(timescale: timescale, duration: duration)] + children)
}

private func failure(_ bytes: [UInt8]) -> MovieError? {
    do {
        let info = try MovieParser.parse(MemoryBytes(bytes))
        _ = try info.presentationDuration().get()
        return nil
    } catch {
        return error
    }
}

@Suite("MP4/MOV box parser")
struct MovieParserTests {
    // 60.06 s of 29.97 fps video: 1801.8 frames at 1001/30000 s each.
    let movieTicks: UInt64 = 60_060  // at 1000
    let mediaTicks: UInt64 = 1_801_800  // at 30000

    @Test("the media header when there is no edit list")
    func mediaHeader() throws {
        let moov = movieBox(
            timescale: 1000, duration: movieTicks,
            Boxes.track(id: 1, handler: "vide", timescale: 30_000, duration: mediaTicks))
        let (seconds, source) = try duration([Boxes.ftyp(), moov, Boxes.mdat(1000)])
        #expect(seconds == Rational(1_801_800, 30_000))
        #expect(source == "media header")
    }

    @Test("the edit list wins, empty edits included, in the movie timescale")
    func editList() throws {
        // A 0.5 s empty edit (the picture starts late), then 60 s of media.
        let track = Boxes.track(
            id: 1, handler: "vide", timescale: 30_000, duration: 1_801_800, edits: [(500, -1), (60_000, 0)])
        let moov = movieBox(timescale: 1000, duration: 60_500, track)
        let (seconds, source) = try duration([Boxes.ftyp(), moov])
        #expect(seconds == Rational(60_500, 1000))
        #expect(source == "edit list")
    }

    @Test("version-1 headers and 64-bit box sizes, moov after mdat")
    func version1AndLargeBoxes() throws {
        let ticks: UInt64 = 5_000_000_000  // beyond 32 bits: 46 h at 30000
        var trak = Boxes.track(
            id: 7, handler: "vide", timescale: 30_000, duration: ticks, edits: [(ticks / 30, 0)], version: 1)
        trak.large = true
        let moov = Box(
            "moov", children: [Boxes.mvhd(timescale: 1000, duration: ticks / 30, version: 1), trak], large: true)
        var mdat = Boxes.mdat(4096)
        mdat.large = true
        let (seconds, _) = try duration([Boxes.ftyp("qt  "), Box("wide"), mdat, moov])
        #expect(seconds == Rational(Int64(ticks / 30), 1000))
    }

    @Test("the first video track, not the sound track before it")
    func firstVideoTrack() throws {
        let moov = movieBox(
            timescale: 600, duration: 36_000,
            Boxes.track(id: 1, handler: "soun", timescale: 48_000, duration: 2_880_100),
            Boxes.track(id: 2, handler: "vide", timescale: 24_000, duration: 1_441_440),
            Boxes.track(id: 3, handler: "vide", timescale: 25, duration: 1))
        #expect(try duration([Boxes.ftyp(), moov]).0 == Rational(1_441_440, 24_000))
    }

    @Test("fragmented: mehd when present")
    func fragmentedWithMehd() throws {
        let moov = movieBox(
            timescale: 1000, duration: 0,
            Boxes.track(id: 1, handler: "vide", timescale: 90_000, duration: 0),
            Box("mvex", children: [Boxes.mehd(12_345, version: 1), Boxes.trex(track: 1, defaultDuration: 3000)]))
        let (seconds, source) = try duration([
            Boxes.ftyp("iso6"), moov, Boxes.moof(track: 1, count: 30), Boxes.mdat(100),
        ])
        #expect(seconds == Rational(12_345, 1000))
        #expect(source == "movie extends header")
    }

    @Test("fragmented without mehd: the sum of the video track's sample durations")
    func fragmentedSum() throws {
        let moov = movieBox(
            timescale: 1000, duration: 0,
            Boxes.track(id: 1, handler: "vide", timescale: 90_000, duration: 0),
            Boxes.track(id: 2, handler: "soun", timescale: 48_000, duration: 0),
            Box(
                "mvex",
                children: [Boxes.trex(track: 1, defaultDuration: 3003), Boxes.trex(track: 2, defaultDuration: 1024)]))
        let fragments = [
            Boxes.moof(track: 1, count: 60), Boxes.mdat(500),  // trex default: 60 × 3003
            Boxes.moof(track: 2, count: 100), Boxes.mdat(500),  // audio: ignored
            Boxes.moof(track: 1, sampleDurations: [3003, 3003, 3000]), Boxes.mdat(500),  // explicit
            Boxes.moof(track: 1, count: 10, defaultDuration: 1500), Boxes.mdat(500),  // tfhd default
        ]
        let (seconds, source) = try duration([Boxes.ftyp("iso6"), moov] + fragments)
        #expect(seconds == Rational(60 * 3003 + 9006 + 15_000, 90_000))
        #expect(source == "fragments")
    }

    @Test("no video track: refused unless the movie-header fallback is on")
    func noVideo() throws {
        let moov = movieBox(
            timescale: 1000, duration: 9_000,
            Boxes.track(id: 1, handler: "soun", timescale: 48_000, duration: 432_000))
        #expect(failure((Boxes.ftyp().bytes + moov.bytes)) == .noVideoTrack)
        #expect(try duration([Boxes.ftyp(), moov], fallback: true).0 == Rational(9, 1))
    }

    @Test("truncated, empty, garbage and hostile files give a reason, never a crash or a hang")
    func brokenFiles() throws {
        let good = Boxes.movie(milliseconds: 5000)
        #expect(failure([]) == .notMovie)
        #expect(failure(Array("RIFF....WAVEfmt ".utf8)) == .notMovie)
        // Every truncation of a good file is refused or parsed, never trapped.
        for cut in stride(from: 1, to: good.count, by: 1) { _ = failure(Array(good.prefix(cut))) }
        // Only ftyp and mdat: a recording still being written.
        #expect(failure(Boxes.ftyp().bytes + Boxes.mdat(64).bytes) == .noMovieBox)
        // A box claiming to be smaller than its header, or far larger than the file.
        #expect(failure(Boxes.ftyp().bytes + be32(4) + Array("moov".utf8)) != nil)
        #expect(failure(Boxes.ftyp().bytes + be32(0x7FFF_FFF0) + Array("moov".utf8) + [0, 0, 0, 0]) != nil)
        // An edit list claiming a billion entries.
        let lying = movieBox(
            timescale: 1000, duration: 5000,
            Box("trak", children: [Box("edts", children: [Box("elst", [0, 0, 0, 0] + be32(1_000_000_000))])]))
        #expect(failure(Boxes.ftyp().bytes + lying.bytes) != nil)
        // Deep nesting.
        var nested = Box("moov")
        for _ in 0..<40 { nested = Box("moov", children: [nested]) }
        #expect(failure(Boxes.ftyp().bytes + nested.bytes) != nil)
        // Random bytes after a valid ftyp, many seeds.
        var rng = SplitMix64(seed: 99)
        for _ in 0..<300 {
            let noise = (0..<Int.random(in: 8...400, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = failure(Boxes.ftyp().bytes + noise)
        }
    }
}
