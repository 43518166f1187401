import ArgumentParser
import DriftFixtures
import DriftSync
import Foundation

/// How the indexed search grows with the hours indexed: speech-like prints of one-hour recordings (synthesised: a
/// thousand hours of audio do not fit this disk), clips cut from them as a camera hears them (onsets weaker or lost,
/// others added, some a frame early or late, a clock 100 ppm off), each searched for through the index and, up to
/// `--exhaustive-up-to` hours, in every recording. *lookup*: the index alone; *indexed*: the whole indexed search
/// (the lookup and the exact search of the recordings it names, each already prepared); *first*: a clip's cost while
/// the night prepares each named recording once; *every*: the search of every recording.
struct SoundIndexGrowth: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soundindex", abstract: "The indexed search against the recorder-hours indexed.")

    @Option(help: "Recorder-hours to index, one-hour recordings, comma-separated.") var hours = "1,10,100,1000"
    @Option(help: "Clips searched for at each size.") var clips = 100
    @Option(help: "Seconds per clip.") var clipSeconds = 60.0
    @Option(help: "The search of every recording is timed up to this many hours.") var exhaustiveUpTo = 100
    @Option(help: "Timed passes over the clips at each size (the table gives their median and range).") var repeats = 3

    func run() throws {
        let sizes = hours.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard let largest = sizes.max(), largest > 0, clips > 0, repeats > 0 else {
            throw ValidationError("nothing to measure")
        }
        var random = SplitMix64(seed: 67)
        let recordings = (0..<largest).map { _ in Self.speechPrint(seconds: 3600, random: &random) }
        Swift.print(
            "| hours | landmarks/h | index MB/h | build ms/h | lookup ms | met/clip | named/clip | indexed ms | first ms | every ms | found |"
        )
        Swift.print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for size in sizes.sorted() {
            let prints = Array(recordings.prefix(size))
            var index = SoundIndex(recordings: prints)
            var builds: [Double] = []
            for _ in 0..<repeats {
                let clock = ContinuousClock.now
                index = SoundIndex(recordings: prints)
                builds.append((ContinuousClock.now - clock).seconds * 1000 / Double(size))
            }
            let wanted = (0..<clips).map { _ in
                (recording: Int(random.next() % UInt64(size)), start: 1.0 + Double(random.next() % 3500_00) / 100)
            }
            let clipPrints = wanted.map {
                Self.heardByCamera(prints[$0.recording], from: $0.start, seconds: clipSeconds, random: &random)
            }
            // The first pass prepares each named recording for the search (once a night per recording); the timed
            // passes after it are what each further clip costs.
            let matcher = SoundMatcher(recordings: prints, index: index)
            let first = Self.pass(clipPrints, wanted, index: index, matcher: matcher)
            let timed = (0..<repeats).map { _ in Self.pass(clipPrints, wanted, index: index, matcher: matcher) }
            var every = "-"
            if size <= exhaustiveUpTo {
                let exhaustive = SoundMatcher(recordings: prints, indexed: false)
                let some = Array(clipPrints.prefix(min(clips, 20)))
                for clip in some { _ = exhaustive.candidates(for: clip) }
                every = Self.spread(
                    (0..<repeats).map { _ in
                        let clock = ContinuousClock.now
                        for clip in some { _ = exhaustive.candidates(for: clip) }
                        return (ContinuousClock.now - clock).seconds * 1000 / Double(some.count)
                    })
            }
            let found = ([first] + timed).map(\.found).min() ?? 0
            Swift.print(
                "| \(size) | \(Int(Double(index.landmarkCount) / Double(size))) | "
                    + String(format: "%.2f", Double(index.byteCount) / 1e6 / Double(size))
                    + " | \(Self.spread(builds)) | \(Self.spread(timed.map(\.lookup))) | "
                    + "\(Int(timed[0].met)) | " + String(format: "%.2f", timed[0].named)
                    + " | \(Self.spread(timed.map(\.total))) | "
                    + String(format: "%.1f", first.total) + " | \(every) | \(found)/\(clips) |")
        }
        Swift.print(
            "(medians of \(repeats) passes, min-max in brackets; ms per clip of \(Int(clipSeconds)) s, one thread; build ms per recorder-hour)"
        )
    }

    /// One pass over the clips: per clip, the lookup's and the whole search's milliseconds, recordings named, and how
    /// many clips the search put at their place.
    private static func pass(
        _ clips: [SoundPrint], _ wanted: [(recording: Int, start: Double)], index: SoundIndex, matcher: SoundMatcher
    ) -> (lookup: Double, total: Double, met: Double, named: Double, found: Int) {
        var lookup = 0.0
        var total = 0.0
        var named = 0
        var met = 0
        var found = 0
        for (c, clip) in clips.enumerated() {
            // The lookup alone, then the whole indexed search (which makes the same lookup again).
            var start = ContinuousClock.now
            let nomination = index.nominate(clip)
            named += nomination?.recordings.count ?? 0
            met += nomination?.met ?? 0
            lookup += (ContinuousClock.now - start).seconds
            start = ContinuousClock.now
            let best = matcher.candidates(for: clip).first
            total += (ContinuousClock.now - start).seconds
            if let best, best.isClear, best.recording == wanted[c].recording,
                abs(best.startSeconds - wanted[c].start) < 0.05
            {
                found += 1
            }
        }
        let n = Double(clips.count)
        return (lookup * 1000 / n, total * 1000 / n, Double(met) / n, Double(named) / n, found)
    }

    /// "median (min-max)".
    private static func spread(_ values: [Double]) -> String {
        let sorted = values.sorted()
        let median = sorted[sorted.count / 2]
        let digits = median < 10 ? "%.2f" : "%.1f"
        return String(format: "\(digits) (\(digits)-\(digits))", median, sorted[0], sorted[sorted.count - 1])
    }

    /// Speech-like onsets: a syllable every 0.13 to 0.63 s (a pause of 1 to 5 s now and then), its rise 20 to 220
    /// units and half of it in the next frame, a floor of small steps; pitch classes at random.
    static func speechPrint(seconds: Double, random: inout SplitMix64) -> SoundPrint {
        let frames = Int(seconds * Double(SoundPrint.frameRate))
        var onsets = [UInt8](repeating: 0, count: frames)
        for k in 0..<frames { onsets[k] = UInt8(random.next() % 6) }
        var t = 20
        while t < frames - 1 {
            let rise = 20 + Int(random.next() % 200)
            onsets[t] = UInt8(rise)
            onsets[t + 1] = UInt8(rise / 2)
            t += 13 + Int(random.next() % 50)
            if random.next() % 25 == 0 { t += 100 + Int(random.next() % 400) }
        }
        let chroma = (0..<(frames / 10 * 6)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return SoundPrint(onsets: onsets, seconds: seconds, chroma: chroma)
    }

    /// A stretch of a recording's print as a camera's distant microphone prints it: each syllable's rise scaled by
    /// 0.3 to 1.2 and a quarter of them lost under the room's noise, a new one a second, a third a frame early or
    /// late, on a clock 100 ppm slow.
    static func heardByCamera(_ print: SoundPrint, from start: Double, seconds: Double, random: inout SplitMix64)
        -> SoundPrint
    {
        let first = Int(start * Double(SoundPrint.frameRate))
        let count = Int(seconds * Double(SoundPrint.frameRate))
        var onsets = [UInt8](repeating: 0, count: count)
        for k in 0..<count {
            let source = first + Int((Double(k) * 1.0001).rounded())
            guard source < print.onsets.count else { break }
            let value = print.onsets[source]
            if value < 20 {
                onsets[k] = max(onsets[k], UInt8(random.next() % 6))
                continue
            }
            if random.next() % 4 == 0 { continue }
            let scaled = UInt8(min(255, Double(value) * (0.3 + 0.9 * Double(random.next() % 1000) / 1000)))
            let moved = random.next() % 3 == 0 ? k + (random.next() % 2 == 0 ? -1 : 1) : k
            if moved >= 0, moved < count { onsets[moved] = max(onsets[moved], scaled) }
        }
        for _ in 0..<Int(seconds) {
            onsets[Int(random.next() % UInt64(count))] = UInt8(20 + random.next() % 150)
        }
        let chromaFirst = first / 10 * 6
        let chroma = Array(print.chroma[chromaFirst..<min(print.chroma.count, chromaFirst + count / 10 * 6)])
        return SoundPrint(onsets: onsets, seconds: seconds, chroma: chroma)
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
