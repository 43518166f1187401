import ArgumentParser
import DriftFixtures
import Foundation

/// Writes a shoot where nothing pairs by name, with its truth: recorders running for long stretches on their own
/// clocks (`audio/ZOOM000k.WAV`, 24-bit stereo), camera clips with their scratch tracks (`camera/C00kk.MP4`: a small
/// picture and the distant microphone as AAC, by ffmpeg), start timecodes on both, one clip nobody recorded, a
/// recorder from another room, and
/// `truth.json`: where each clip lies in each recorder that heard it, from the scene's numbers alone.
struct ShootFolder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoot", abstract: "Write camera clips and recorders of one scene, named apart, with their truth.")

    @Argument(help: "The folder to write.") var folder: String
    @Option(help: "Clips the recorders heard.") var clips = 6
    @Option(help: "Seconds the first recorder runs (the second runs half as long, from a third in).") var seconds =
        600.0
    @Option var rate = 48_000
    @Option var seed: UInt64 = 5

    func validate() throws {
        guard clips >= 1, seconds >= 60 else { throw ValidationError("--clips at least 1, --seconds at least 60") }
    }

    func run() throws {
        var random = SplitMix64(seed: seed ^ 0x5851_F42D_4C95_7F2D)  // the places this seed has always given
        // Clips spread over the first recorder's run, 20 to 80 s long, then one after every recorder stopped.
        var placed: [Shoot.Clip] = []
        let slot = (seconds - 20) / Double(clips)
        for k in 0..<clips {
            let length = min(slot - 2, 20 + 60 * random.nextUnit())
            placed.append(
                Shoot.Clip(start: 10 + Double(k) * slot + (slot - length - 1) * random.nextUnit(), seconds: length))
        }
        placed.append(Shoot.Clip(start: seconds + 30, seconds: 25))
        var shoot = Shoot(
            sound: .speech, seed: seed, sampleRate: rate,
            recorders: [
                Shoot.Recorder(start: -3, seconds: seconds, driftPPM: -131),
                Shoot.Recorder(start: seconds / 3, seconds: seconds / 2, driftPPM: 57),
            ],
            clips: placed)
        // Every device jam-synced to the time of day at the start: BWF start times on the recorders, timecode on the
        // clips (25 fps).
        shoot.dayStart = 9 * 3600 + 41.7
        let audio = (folder as NSString).appendingPathComponent("audio")
        let camera = (folder as NSString).appendingPathComponent("camera")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: camera, withIntermediateDirectories: true)
        let recorderFiles = ["ZOOM0001.WAV", "ZOOM0002.WAV"].map { (audio as NSString).appendingPathComponent($0) }
        for r in shoot.recorders.indices { try shoot.writeRecorder(r, to: recorderFiles[r], channels: 2) }
        // As a production recorder writes them: iXML (scene, take, tape, the tracks' names) and a marker where the
        // recordist heard each clip's slate.
        for r in shoot.recorders.indices {
            let markers = shoot.clips.indices.compactMap { c -> String? in
                let at = shoot.start(ofClip: c, inRecorder: r) + 1
                guard at > 0, at < shoot.recorders[r].seconds else { return nil }
                return String(format: "%.3f:slate C%04d", at, c + 1)
            }
            let slate = try SlateFile.parse(
                [recorderFiles[r], "--scene", "12A", "--take", "\(r + 3)", "--tape", "DAY04"]
                    + (r == 0 ? ["BOOM", "LAV 1"] : ["LAV 2", "LAV 3"]).flatMap { ["--track", $0] }
                    + markers.flatMap { ["--marker", $0] })
            try slate.run()
        }
        // Another room: heard none of the clips.
        try TwoMicrophones(sampleRate: rate, seconds: 120, seed: seed &+ 977)
            .write(.recording, to: (audio as NSString).appendingPathComponent("ZOOM0003.WAV"), channels: 2)
        var truth: [[String: Any]] = []
        for c in shoot.clips.indices {
            let path = (camera as NSString).appendingPathComponent(String(format: "C%04d.MP4", c + 1))
            try shoot.writeCameraClip(c, to: path)
            let heard = shoot.recorders.indices.filter { shoot.coverage(ofClip: c, byRecorder: $0) > 0 }.map {
                r -> [String: Any] in
                [
                    "recording": recorderFiles[r], "recordingStartSeconds": shoot.start(ofClip: c, inRecorder: r),
                    "coverage": shoot.coverage(ofClip: c, byRecorder: r), "driftPPM": shoot.recorders[r].driftPPM,
                ]
            }
            truth.append(["reference": path, "seconds": shoot.clips[c].seconds, "heardBy": heard])
        }
        let data = try JSONSerialization.data(withJSONObject: ["clips": truth], options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: (folder as NSString).appendingPathComponent("truth.json")))
    }
}

/// Writes one of the recorded-music cases the tests use (`PlaybackShoot`), with its truth: the same samples twice, a
/// loop under noise, a music video's three takes, or excerpts of a song.
struct PlaybackFolder: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playback", abstract: "Write a recorded-music case (twice, loop, takes, excerpts) with its truth.")

    enum Case: String, ExpressibleByArgument, CaseIterable { case twice, loop, takes, excerpts }

    @Argument(help: "The folder to write.") var folder: String
    @Option(help: "The song (any file libsndfile reads).") var song: String
    @Option(name: .customLong("case")) var scene: Case = .excerpts
    @Flag(help: "Give the devices' calendar clocks (BWF origination, creation_time), an hour apart.") var clocks = false

    func run() throws {
        let shoot: PlaybackShoot
        switch scene {
        case .twice: shoot = try .twice(song: song)
        case .loop: shoot = try .loop(song: song)
        case .takes: shoot = try .takes(song: song)
        case .excerpts: shoot = try .excerpts(song: song)
        }
        let day = 1_795_600_000.0
        try shoot.write(
            to: folder, cameraClock: clocks ? day + 3617.4 : nil, recorderClock: clocks ? day - 12.3 : nil)
    }
}
