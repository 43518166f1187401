import DriftAudio
import DriftCore
import Foundation

/// A shoot of recorded music with its truth: a song played back in a room for several takes (a music video), heard
/// by recorders on their own clocks and by cameras, and clips that are excerpts of it. Built from a real song (the
/// committed excerpts in Tests/Music), nothing here uses driftfix's DSP: the room (reflections, the slates a clapper
/// makes before a take, the room's own noise) is rendered on the scene's clock, and each device samples it on its own
/// clock through a windowed sinc of its own.
///
/// - A **line-feed** recorder hears the playback desk's feed: the song alone, the same samples at every take.
/// - A **room** recorder hears the room: the song through its reflections, the slates, the room's noise (different at
///   every moment, so different in every take).
/// - A **camera** hears the room through its own microphone (low-passed at 7 kHz, noise of its own) and writes AAC.
public struct PlaybackShoot: Sendable {
    public struct Take: Sendable {
        /// Scene time the song starts, seconds.
        public var start: Double
        /// A slate two seconds before the song: a clap, then a beep whose pitch names the take.
        public var slate: Bool
    }

    public struct Recorder: Sendable {
        /// Scene time of its first frame, its length and its clock's drift.
        public var start: Double
        public var seconds: Double
        public var driftPPM: Double
        /// The desk's feed (the song alone) rather than a microphone in the room.
        public var lineFeed: Bool
    }

    /// A camera's clip: scene time of its first frame and its length (a camera's clock is the scene's).
    public typealias Clip = Shoot.Clip

    public let rate: Int
    /// The song, at `rate`.
    public let song: [Float]
    public var takes: [Take]
    public var recorders: [Recorder]
    public var clips: [Clip]
    /// The room's noise, RMS (the song's own RMS is about 0.1).
    public var roomNoise: Double = 0.01
    public var seed: UInt64 = 7

    /// The song read from `path` (`seconds` of it from `from`), at its own rate.
    public init(song path: String, from: Double = 0, seconds: Double? = nil) throws {
        let (samples, format, _) = try readAll(path)
        let channels = format.channelCount
        let mono = stride(from: 0, to: samples.count - channels + 1, by: channels).map { i in
            (0..<channels).reduce(Float(0)) { $0 + samples[i + $1] } / Float(channels)
        }
        let rate = format.sampleRate
        let first = min(mono.count, Int(from * Double(rate)))
        let last = min(mono.count, seconds.map { first + Int($0 * Double(rate)) } ?? mono.count)
        self.rate = rate
        song = Array(mono[first..<last])
        takes = []
        recorders = []
        clips = []
    }

    public var songSeconds: Double { Double(song.count) / Double(rate) }

    /// The take clip `c` filmed: the one whose song it overlaps most; nil for none.
    public func take(ofClip c: Int) -> Int? {
        let clip = clips[c]
        let overlaps = takes.indices.map { k in
            max(0, min(clip.start + clip.seconds, takes[k].start + songSeconds) - max(clip.start, takes[k].start))
        }
        guard let best = overlaps.indices.max(by: { overlaps[$0] < overlaps[$1] }), overlaps[best] > 0 else {
            return nil
        }
        return best
    }

    /// Recording time of clip `c`'s first frame in recorder `r`, seconds.
    public func start(ofClip c: Int, inRecorder r: Int) -> Double {
        (clips[c].start - recorders[r].start) * (1 + recorders[r].driftPPM * 1e-6)
    }

    /// Where clip `c`'s sound is also heard in recorder `r` (the same moment of the song in another take), recording
    /// seconds: the places a wrong answer would give.
    public func otherPlaces(ofClip c: Int, inRecorder r: Int) -> [Double] {
        guard let k = take(ofClip: c) else { return [] }
        return takes.indices.filter { $0 != k }.map { other in
            (clips[c].start - takes[k].start + takes[other].start - recorders[r].start)
                * (1 + recorders[r].driftPPM * 1e-6)
        }
    }

    /// The scene's length: every take, recorder and clip, and a second more.
    var sceneSeconds: Double {
        let ends =
            takes.map { $0.start + songSeconds } + recorders.map { $0.start + $0.seconds * 1.001 }
            + clips.map { $0.start + $0.seconds }
        return (ends.max() ?? 0) + 1
    }

    /// The playback desk's feed on the scene's clock: the song at every take.
    func feed() -> [Float] {
        var out = [Float](repeating: 0, count: Int(sceneSeconds * Double(rate)))
        for take in takes {
            let first = Int((take.start * Double(rate)).rounded())
            for (i, v) in song.enumerated() where first + i >= 0 && first + i < out.count { out[first + i] += v }
        }
        return out
    }

    /// The room on the scene's clock: the feed through the room's reflections, the slates, the room's noise.
    func room() -> [Float] {
        let dry = feed()
        var out = dry
        // Sixty reflections 5 to 400 ms late, decaying by 0.12 s, of either sign.
        var random = Noise(seed: seed &+ 11)
        for _ in 0..<60 {
            let delay = Int((0.005 + 0.395 * random.uniform()) * Double(rate))
            let gain = Float(0.3 * exp(-Double(delay) / Double(rate) / 0.12) * (random.uniform() < 0.5 ? -1 : 1))
            for i in delay..<out.count { out[i] += gain * dry[i - delay] }
        }
        for (k, take) in takes.enumerated() where take.slate {
            let clap = Int(((take.start - 2) * Double(rate)).rounded())
            for i in 0..<Int(0.015 * Double(rate)) where clap + i >= 0 && clap + i < out.count {
                out[clap + i] += Float(0.5 * random.gaussian()) * Float(1 - Double(i) / (0.015 * Double(rate)))
            }
            let beep = clap + Int(0.2 * Double(rate))
            let pitch = 600 + 150 * Double(k)
            for i in 0..<Int(0.3 * Double(rate)) where beep + i >= 0 && beep + i < out.count {
                out[beep + i] += Float(0.3 * sin(2 * Double.pi * pitch * Double(i) / Double(rate)))
            }
        }
        // The room's noise: pinkish (white through a one-pole low-pass), never the same twice.
        var noise = Noise(seed: seed &+ 23)
        var state = 0.0
        let scale = roomNoise * 4
        for i in out.indices {
            state = 0.94 * state + 0.06 * noise.gaussian()
            out[i] += Float(state * scale)
        }
        return out
    }

    /// Writes recorder `r` as a 24-bit WAV, on its own clock, with a BWF origination date and time from its own
    /// calendar clock (`clock` seconds since 1970 at scene time 0; nil: none).
    public func writeRecorder(_ r: Int, to path: String, clock: Double? = nil) throws {
        let recorder = recorders[r]
        let scene = recorder.lineFeed ? feed() : room()
        let count = Int(recorder.seconds * Double(rate))
        var samples = [Float](repeating: 0, count: count)
        var noise = Noise(seed: seed &+ 31 &+ UInt64(r))
        let level = recorder.lineFeed ? 0.0001 : 0.002
        for j in 0..<count {
            let sceneTime = recorder.start + Double(j) / Double(rate) / (1 + recorder.driftPPM * 1e-6)
            samples[j] = Self.sample(scene, at: sceneTime * Double(rate)) + Float(level * noise.gaussian())
        }
        var info: BroadcastInfo?
        if let clock {
            let (date, time) = Self.calendar(clock + recorder.start)
            info = BroadcastInfo(originationDate: date, originationTime: time)
        }
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: rate, channelCount: 1)
        let writer = try AudioFileWriter(path: path, format: format, metadata: AudioMetadata(broadcastInfo: info))
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: count) }
        try writer.close()
    }

    /// Writes clip `c` as a camera writes it: a small picture and the room through the camera's microphone
    /// (high-passed at 150 Hz, low-passed at 7 kHz, noise of its own) as AAC, with a `creation_time` from the
    /// camera's calendar clock (`clock` seconds since 1970 at scene time 0; nil: none). ffmpeg makes the file.
    public func writeClip(_ c: Int, to path: String, clock: Double? = nil) throws {
        let clip = clips[c]
        let scene = room()
        let first = Int((clip.start * Double(rate)).rounded())
        let count = Int(clip.seconds * Double(rate))
        var samples = (0..<count).map { i in first + i >= 0 && first + i < scene.count ? scene[first + i] : 0 }
        samples = Self.biquad(samples, Self.highPass(150, rate: rate))
        samples = Self.biquad(samples, Self.lowPass(7000, rate: rate))
        var noise = Noise(seed: seed &+ 101 &+ UInt64(c))
        for i in samples.indices { samples[i] += Float(0.004 * noise.gaussian()) }
        let sound = path + ".camera.wav"
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: rate, channelCount: 1)
        let writer = try AudioFileWriter(path: sound, format: format, metadata: AudioMetadata())
        try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: count) }
        try writer.close()
        defer { unlink(sound) }
        var created: [String] = []
        if let clock {
            let (date, time) = Self.calendar(clock + clip.start)
            created = ["-metadata", "creation_time=\(date)T\(time).000000Z"]
        }
        _ = try runTool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=25", "-i", sound,
                "-t", String(clip.seconds), "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "96k",
            ] + created + [path])
    }

    /// `x` at fractional index `position`: a Blackman-windowed sinc, 24 samples either side.
    static func sample(_ x: [Float], at position: Double) -> Float {
        let centre = Int(position.rounded(.down))
        let fraction = position - Double(centre)
        var sum = 0.0
        for k in -23...24 {
            let i = centre + k
            guard i >= 0, i < x.count else { continue }
            let d = Double(k) - fraction
            let sinc = d == 0 ? 1 : sin(Double.pi * d) / (Double.pi * d)
            let w = 0.42 + 0.5 * cos(Double.pi * d / 24.5) + 0.08 * cos(2 * Double.pi * d / 24.5)
            sum += Double(x[i]) * sinc * w
        }
        return Float(sum)
    }

    /// A second-order section's coefficients (b0, b1, b2, a1, a2).
    typealias Section = (Double, Double, Double, Double, Double)

    static func lowPass(_ hz: Double, rate: Int) -> Section {
        let w = 2 * Double.pi * hz / Double(rate)
        let alpha = sin(w) / (2 * 0.7071)
        let a0 = 1 + alpha
        return ((1 - cos(w)) / 2 / a0, (1 - cos(w)) / a0, (1 - cos(w)) / 2 / a0, -2 * cos(w) / a0, (1 - alpha) / a0)
    }

    static func highPass(_ hz: Double, rate: Int) -> Section {
        let w = 2 * Double.pi * hz / Double(rate)
        let alpha = sin(w) / (2 * 0.7071)
        let a0 = 1 + alpha
        return ((1 + cos(w)) / 2 / a0, -(1 + cos(w)) / a0, (1 + cos(w)) / 2 / a0, -2 * cos(w) / a0, (1 - alpha) / a0)
    }

    static func biquad(_ x: [Float], _ s: Section) -> [Float] {
        var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
        return x.map { value in
            let v = Double(value)
            let y = s.0 * v + s.1 * x1 + s.2 * x2 - s.3 * y1 - s.4 * y2
            (x2, x1, y2, y1) = (x1, v, y1, y)
            return Float(y)
        }
    }

    /// `yyyy-mm-dd` and `hh:mm:ss` (UTC) of `seconds` since 1970.
    static func calendar(_ seconds: Double) -> (String, String) {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        return (
            String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday)),
            String(format: "%02d:%02d:%02d", Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        )
    }

    // MARK: the cases the tests and the benchmark share

    /// The song's feed recorded twice, the same samples (a playback desk's line at two takes), and a clip of the
    /// second take.
    public static func twice(song: String) throws -> PlaybackShoot {
        var shoot = try PlaybackShoot(song: song, from: 30, seconds: 30)
        shoot.takes = [Take(start: 10, slate: false), Take(start: 70, slate: false)]
        shoot.recorders = [Recorder(start: 2, seconds: 110, driftPPM: -60, lineFeed: true)]
        shoot.clips = [Clip(start: 76, seconds: 18)]
        return shoot
    }

    /// A ten-second phrase looped eight times in a room whose noise lies 34 dB below it, and a clip of 25 s.
    public static func loop(song: String) throws -> PlaybackShoot {
        var shoot = try PlaybackShoot(song: song, from: 60, seconds: 10)
        shoot.takes = (0..<8).map { Take(start: 2 + 10 * Double($0), slate: false) }
        shoot.roomNoise = 0.002
        shoot.recorders = [Recorder(start: 0, seconds: 84, driftPPM: 35, lineFeed: false)]
        shoot.clips = [Clip(start: 25, seconds: 25)]
        return shoot
    }

    /// A music video: 40 s of the song played back at three takes a minute apart, slates before the first and the
    /// last, a line-feed recorder and a room recorder; each take filmed from before its slate and from its middle.
    public static func takes(song: String) throws -> PlaybackShoot {
        var shoot = try PlaybackShoot(song: song, from: 30, seconds: 40)
        shoot.takes = [Take(start: 12, slate: true), Take(start: 72, slate: false), Take(start: 132, slate: true)]
        shoot.recorders = [
            Recorder(start: 5, seconds: 175, driftPPM: -60, lineFeed: true),
            Recorder(start: 0, seconds: 185, driftPPM: 45, lineFeed: false),
        ]
        shoot.clips = shoot.takes.flatMap { take in
            [Clip(start: take.start - 3, seconds: 18), Clip(start: take.start + 14, seconds: 14)]
        }
        return shoot
    }

    /// The whole song played once in a room, a room recorder, and excerpts of 12 to 30 s every 4 to 10 s of it.
    public static func excerpts(song: String, seed: UInt64 = 5) throws -> PlaybackShoot {
        var shoot = try PlaybackShoot(song: song)
        shoot.takes = [Take(start: 6, slate: false)]
        shoot.recorders = [Recorder(start: 0, seconds: shoot.songSeconds + 10, driftPPM: -80, lineFeed: false)]
        var random = Noise(seed: seed)
        var at = 0.5
        while at + 12 < shoot.songSeconds {
            let length = min(12 + 18 * random.uniform(), shoot.songSeconds - at)
            shoot.clips.append(Clip(start: 6 + at, seconds: length))
            at += 4.3 + 6 * random.uniform()
        }
        return shoot
    }

    /// Recorder `r`'s file name below the shoot's folder.
    public static func recorderName(_ r: Int) -> String { "audio/REC000\(r + 1).WAV" }
    /// Clip `c`'s file name below the shoot's folder.
    public static func clipName(_ c: Int) -> String { String(format: "camera/C%04d.MP4", c + 1) }

    /// Writes every recorder and clip below `folder` (`recorderName`, `clipName`), with the devices' calendar clocks
    /// where given, and `truth.json`: each clip's take and its start in each recorder, from the scene's numbers.
    public func write(to folder: String, cameraClock: Double? = nil, recorderClock: Double? = nil) throws {
        let base = folder as NSString
        try FileManager.default.createDirectory(
            atPath: base.appendingPathComponent("audio"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: base.appendingPathComponent("camera"), withIntermediateDirectories: true)
        for r in recorders.indices {
            try writeRecorder(r, to: base.appendingPathComponent(Self.recorderName(r)), clock: recorderClock)
        }
        var truth: [[String: Any]] = []
        for c in clips.indices {
            let path = base.appendingPathComponent(Self.clipName(c))
            try writeClip(c, to: path, clock: cameraClock)
            truth.append([
                "reference": path, "seconds": clips[c].seconds, "take": take(ofClip: c) ?? -1,
                "heardBy": recorders.indices.map { r in
                    [
                        "recording": base.appendingPathComponent(Self.recorderName(r)),
                        "recordingStartSeconds": start(ofClip: c, inRecorder: r),
                        "otherPlaces": otherPlaces(ofClip: c, inRecorder: r),
                    ] as [String: Any]
                },
            ])
        }
        let data = try JSONSerialization.data(withJSONObject: ["clips": truth], options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: base.appendingPathComponent("truth.json")))
    }
}
