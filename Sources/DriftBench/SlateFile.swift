import ArgumentParser
import DriftAudio
import DriftFixtures
import Foundation

/// Gives a WAV the chunks a production recorder writes: iXML (project, scene, take, tape, track names, its start
/// time from the file's bext) and markers with their labels (`cue ` and `LIST`/`adtl`).
struct SlateFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slate", abstract: "Add a recorder's iXML and markers to a WAV file, in place.")

    @Argument(help: "The WAV file to slate.") var file: String
    @Option var project = "Night Ride"
    @Option var scene = "12A"
    @Option var take = "3"
    @Option var tape = "DAY04"
    @Option(name: .customLong("track"), help: "A track's name, one per channel, in channel order.")
    var tracks: [String] = []
    @Option(name: .customLong("marker"), help: "A marker, SECONDS:LABEL (repeat for more).") var markers: [String] = []

    func run() throws {
        let reader = try AudioFileReader(path: file)
        let rate = reader.format.sampleRate
        var wave = ProductionWave(
            sampleRate: rate, seconds: Double(reader.frameCount) / Double(rate),
            trackNames: tracks.isEmpty ? (1...reader.channelCount).map { "TRACK \($0)" } : tracks,
            timeReference: reader.metadata().broadcastInfo?.timeReference ?? 0)
        (wave.project, wave.scene, wave.take, wave.tape) = (project, scene, take, tape)
        wave.syncPoint = nil
        wave.markers = try markers.enumerated().map { index, text in
            let parts = text.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let seconds = Double(parts[0]) else {
                throw ValidationError("--marker \(text): give SECONDS:LABEL")
            }
            return .init(id: UInt32(index + 1), frame: Int64(seconds * Double(rate)), label: String(parts[1]))
        }
        try ChunkFile.insert(wave.recorderChunks(), into: file)
    }
}
