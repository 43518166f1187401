import ArgumentParser
import DriftFixtures
import DriftRepair
import DriftSync
import Foundation
import Synchronization

/// How fast clips are found in recorded hours: prints made from a real file (its speed against real time), and
/// `clips` clip prints searched for in `hours` of recording prints. The search's cost does not depend on what the
/// prints hold, so the recordings are onset-like noise and each clip is a stretch of one of them (it must be found).
struct SoundMatchSpeed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soundmatch", abstract: "Print speed on a file, and clips searched for in recorded hours.")

    @Option(help: "A file to print (its speed against real time).") var file: String?
    @Option(help: "Clips to search for.") var clips = 1000
    @Option(help: "Seconds per clip.") var clipSeconds = 180.0
    @Option(help: "Recorded hours in all.") var hours = 50.0
    @Option(help: "Recordings they are split into.") var recordings = 50
    @Option(help: "Threads searching at once.") var threads = ProcessInfo.processInfo.activeProcessorCount
    @Flag(help: "Search every recording for every clip (no landmark index).") var exhaustiveSearch = false

    func run() throws {
        if let file {
            let clock = ContinuousClock.now
            guard let print = try ClipSync.print(of: file) else { throw ValidationError("\(file) has no sound") }
            let took = (ContinuousClock.now - clock).seconds
            Swift.print(
                String(
                    format: "print of %@: %.0f s of sound in %.2f s: %.0fx realtime, %d bytes",
                    (file as NSString).lastPathComponent, print.seconds, took, print.seconds / took, print.bytes.count))
        }
        guard clips > 0, recordings > 0 else { return }
        var random = SplitMix64(seed: 1 ^ 0x5851_F42D_4C95_7F2D)  // the prints this bench has always made
        func next() -> UInt64 { random.next() }
        let seconds = hours * 3600 / Double(recordings)
        let frames = Int(seconds * Double(SoundPrint.frameRate))
        // Onset-like: mostly quiet, a sharp rise every few frames; pitch classes at random (ten frames a second, six
        // bytes each), so the harmony is searched as on real prints.
        let chromaFrames = frames / (SoundPrint.frameRate / 10)
        let prints = (0..<recordings).map { _ in
            SoundPrint(
                onsets: (0..<frames).map { _ in next() % 7 == 0 ? UInt8(next() % 200) : UInt8(next() % 6) },
                seconds: seconds, chroma: (0..<(chromaFrames * 6)).map { _ in UInt8(next() & 0xFF) })
        }
        let clipFrames = Int(clipSeconds * Double(SoundPrint.frameRate))
        let wanted = (0..<clips).map { _ in
            (recording: Int(next() % UInt64(recordings)), start: Int(next() % UInt64(max(1, frames - clipFrames))))
        }
        let clipPrints = wanted.map { want -> SoundPrint in
            // The clip's pitch classes are the recording's frames it covers (a clip starts on a tenth of a second).
            let first = want.start / 10 * 6
            let chroma = prints[want.recording].chroma
            return SoundPrint(
                onsets: Array(prints[want.recording].onsets[want.start..<(want.start + clipFrames)]),
                seconds: clipSeconds, chroma: Array(chroma[first..<min(chroma.count, first + clipFrames / 10 * 6)]))
        }
        let matcher = SoundMatcher(recordings: prints, indexed: !exhaustiveSearch)
        let clock = ContinuousClock.now
        let right = Atomic<Int>(0)
        let nextClip = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, threads)) { _ in
            while true {
                let c = nextClip.add(1, ordering: .relaxed).oldValue
                guard c < clipPrints.count else { return }
                let best = matcher.candidates(for: clipPrints[c]).first
                if let best, best.isClear, best.recording == wanted[c].recording,
                    abs(best.startSeconds - Double(wanted[c].start) / Double(SoundPrint.frameRate)) < 0.02
                {
                    right.add(1, ordering: .relaxed)
                }
            }
        }
        let took = (ContinuousClock.now - clock).seconds
        Swift.print(
            String(
                format:
                    "%d clips of %.0f s searched for in %.0f recorded hours (%d recordings, %@) on %d threads: %.1f s, %.2f ms per clip and recorded hour; %d of %d found where they are",
                clips, clipSeconds, hours, recordings, exhaustiveSearch ? "every recording" : "indexed", threads, took,
                took * 1000 / Double(clips) / hours,
                right.load(ordering: .relaxed), clips))
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
