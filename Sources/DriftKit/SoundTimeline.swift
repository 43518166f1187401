import DriftAV
import DriftAudio
import DriftCore
import DriftMedia
import DriftRepair
import DriftSchema
import DriftSoundPairing
import DriftSupport
import DriftTimeline
import Foundation

import struct SystemPackage.FilePath

/// The timeline of a run's pairing by sound, written where the settings ask: what each file is (its picture rate or
/// sample rate, its length, its start timecode) read from the files, the tracks named by the configuration's device
/// rules.
struct SoundTimeline {
    let settings: Run.Settings

    /// The files written, or the problem that stopped it; a line for each file left off the timeline.
    func write(_ sound: SoundPairingReport, to file: TimelineFile) -> (
        result: Result<[FilePath], TimelineError>, leftOff: [String]
    ) {
        var paths: Set<String> = []
        for group in sound.groups {
            paths.formUnion(group.matches.map(\.referenceText) + group.clipsText)
            paths.formUnion(group.matches.filter { $0.status != .uncertain }.map(\.recordingText))
            if file.audio == .synced { paths.formUnion(group.matches.compactMap(\.outputText)) }
        }
        let clips = Set(sound.groups.flatMap { $0.matches.map(\.referenceText) + $0.clipsText })
        let ordered = paths.sorted()
        let facts = Parallel.map(ordered, threads: Cores.available) { path in
            Self.media(path, picture: clips.contains(path))
        }
        let media = Dictionary(zip(ordered, facts).compactMap { path, media in media.map { (path, $0) } }) { a, _ in a }
        let rules = settings.configuration.pairing.device
        let roots = settings.rootTexts
        let timeline = SyncTimeline(
            name: "driftfix " + roots.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "),
            audio: file.audio, media: media
        ) { path in
            let root = roots.first { FilePath(pathText: path).isBelow(FilePath(pathText: $0)) }
            return rules.identify(recording: path, root: root, metadata: nil).name
        }
        let (built, leftOff) = timeline.build(sound)
        do {
            return (.success(try file.write(built)), leftOff)
        } catch {
            return (.failure(error), leftOff)
        }
    }

    /// What the timeline needs of `path`: a clip by its picture (frames at its rate, its start timecode in frames),
    /// anything else by its sound (samples, its start time in samples); nil when it cannot be read.
    static func media(_ path: String, picture: Bool) -> EditTimeline.Media? {
        let info = try? MediaProbe.probe(path)
        let sound = info?.audioStreams.first
        let start = StartTimecode.seconds(of: path)
        if picture, let info, let rate = info.videoStreams.first?.frameRate, rate.numerator > 0,
            case .success(let duration) = ReferenceProbe.duration(of: path)
        {
            // Frames: the duration times the rate, both exact.
            let frames = Int64(
                (Double(duration.seconds.numerator) * Double(rate.numerator)
                    / (Double(duration.seconds.denominator) * Double(rate.denominator))).rounded())
            return EditTimeline.Media(
                path: path, rate: rate, length: frames,
                start: start.map { Int64(($0 * rate.doubleValue).rounded()) } ?? 0, hasVideo: true,
                hasAudio: sound != nil, sampleRate: sound?.sampleRate, channels: sound?.channelCount)
        }
        guard let (frames, sampleRate) = try? AudioInput.length(of: path), sampleRate > 0 else { return nil }
        return EditTimeline.Media(
            path: path, rate: Rational(Int64(sampleRate)), length: frames,
            start: start.map { Int64(($0 * Double(sampleRate)).rounded()) } ?? 0,
            hasVideo: !(info?.videoStreams.isEmpty ?? true), hasAudio: true, sampleRate: sampleRate,
            channels: sound?.channelCount, slate: RecordingProbe.slate(of: path))
    }
}
