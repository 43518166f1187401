import DriftAudio
import Foundation

/// A shoot with known truth: one scene, recorders running for long stretches on their own clocks, camera clips of a
/// few minutes each (their scratch tracks: the distant microphone), named so that nothing pairs by name.
///
/// Every file is rendered from the continuous-time scene (`TwoMicrophones`), never by driftfix's DSP, so where each
/// clip lies in each recorder follows from the numbers alone.
public struct Shoot: Sendable {
    public struct Recorder: Sendable {
        /// Scene time of the recorder's first frame.
        public var start: Double
        public var seconds: Double
        public var driftPPM: Double
        /// How far its start timecode is from the scene's clock, seconds (a recorder not jam-synced).
        public var timecodeError: Double
        /// How its clock wandered beyond `driftPPM` (its drift at its start); nil: straight.
        public var wander: ClockWander?
        public init(start: Double, seconds: Double, driftPPM: Double, timecodeError: Double = 0) {
            self.start = start
            self.seconds = seconds
            self.driftPPM = driftPPM
            self.timecodeError = timecodeError
        }
    }

    public struct Clip: Sendable {
        /// Scene time of the clip's first frame.
        public var start: Double
        public var seconds: Double
        public init(start: Double, seconds: Double) {
            self.start = start
            self.seconds = seconds
        }
    }

    public var sound: TwoMicrophones.Sound
    public var seed: UInt64
    public var sampleRate: Int
    public var recorders: [Recorder]
    public var clips: [Clip]
    /// Per recorder: gaps in its recording, (recording time, seconds lost).
    public var recorderDropouts: [[(at: Double, missing: Double)]] = []
    /// Time of day of scene time 0, seconds since midnight: recorders write it (plus their start) as a BWF start
    /// time, clips as a start timecode; nil: no timecodes.
    public var dayStart: Double?

    public init(
        sound: TwoMicrophones.Sound = .speech, seed: UInt64 = 7, sampleRate: Int = 16000, recorders: [Recorder],
        clips: [Clip]
    ) {
        self.sound = sound
        self.seed = seed
        self.sampleRate = sampleRate
        self.recorders = recorders
        self.clips = clips
    }

    /// The scene's length: everything any file hears, and a margin.
    public var sceneSeconds: Double {
        let recorded = recorders.map { $0.start + $0.seconds * 1.01 }.max() ?? 0
        let filmed = clips.map { $0.start + $0.seconds }.max() ?? 0
        return max(recorded, filmed) + 4
    }

    /// Recorder `r` as the recording side of its microphones.
    public func recorder(_ r: Int) -> TwoMicrophones {
        let recorder = recorders[r]
        var setup = TwoMicrophones(
            sampleRate: sampleRate, seconds: recorder.seconds, offset: recorder.start,
            driftPPM: recorder.driftPPM, sound: sound, seed: seed)
        setup.sceneLength = sceneSeconds
        setup.microphoneSeed = UInt64(r) &* 1009
        setup.wander = recorder.wander
        if r < recorderDropouts.count { setup.dropouts = recorderDropouts[r] }
        return setup
    }

    /// Clip `c` as the reference side (the camera's distant microphone).
    public func clip(_ c: Int) -> TwoMicrophones {
        var setup = TwoMicrophones(sampleRate: sampleRate, seconds: 1, sound: sound, seed: seed)
        setup.referenceStart = clips[c].start
        setup.referenceLength = clips[c].seconds
        setup.sceneLength = sceneSeconds
        setup.microphoneSeed = 7_000 &+ UInt64(c)
        return setup
    }

    /// Recorder time of clip `c`'s first moment in recorder `r`, seconds (negative: the recorder started later).
    public func start(ofClip c: Int, inRecorder r: Int) -> Double {
        let setup = recorder(r)
        if setup.wander != nil { return setup.recordingTime(ofReference: clips[c].start) }
        // Scene time runs at `speed` between the gaps; each gap before the moment skips its time.
        var t = (clips[c].start - setup.offset) / setup.speed
        for gap in setup.dropouts.sorted(by: { $0.at < $1.at }) where gap.at <= t { t -= gap.missing / setup.speed }
        return t
    }

    /// The share of clip `c` recorder `r` heard.
    public func coverage(ofClip c: Int, byRecorder r: Int) -> Double {
        let recorder = recorders[r]
        let clip = clips[c]
        let end = self.recorder(r).referenceTime(recorder.seconds)
        let overlap = min(end, clip.start + clip.seconds) - max(recorder.start, clip.start)
        return max(0, overlap / clip.seconds)
    }

    /// Writes recorder `r` as a WAV file (with its BWF start time where the shoot has a `dayStart`).
    public func writeRecorder(_ r: Int, to path: String, channels: Int = 1) throws {
        let start = dayStart.map { $0 + recorders[r].start + recorders[r].timecodeError }
        try recorder(r).write(
            .recording, to: path, channels: channels,
            timeReference: start.map { UInt64(($0 * Double(sampleRate)).rounded()) } ?? 0)
    }

    /// Clip `c`'s start timecode at `frameRate` frames a second (non-drop), as a camera writes it; nil without a
    /// `dayStart`.
    public func clipTimecode(_ c: Int, frameRate: Int = 25) -> String? {
        guard let dayStart else { return nil }
        let frames = Int(((dayStart + clips[c].start) * Double(frameRate)).rounded())
        let seconds = frames / frameRate
        return String(
            format: "%02d:%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60, frames % frameRate)
    }

    /// Writes clip `c`'s scratch track as a WAV file.
    public func writeClip(_ c: Int, to path: String) throws {
        try clip(c).write(.reference, to: path)
    }

    /// Writes clip `c` as a camera writes it: a small picture and its scratch track (the distant microphone) as AAC,
    /// with its start timecode where the shoot has a `dayStart` (ffmpeg makes the file), at `frameRate` (as ffmpeg
    /// spells it: `25`, `24000/1001`).
    public func writeCameraClip(_ c: Int, to path: String, frameRate: String = "25") throws {
        let sound = path + ".scratch.wav"
        // Timecode counts whole frames at the nominal rate (24 for 24000/1001).
        let parts = frameRate.split(separator: "/").compactMap { Double($0) }
        let nominal = Int(((parts.first ?? 25) / (parts.count > 1 ? parts[1] : 1)).rounded())
        try writeClip(c, to: sound)
        defer { unlink(sound) }
        _ = try runTool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=\(frameRate)",
                "-i",
                sound,
                "-t", String(clips[c].seconds), "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "96k",
            ] + (clipTimecode(c, frameRate: nominal).map { ["-timecode", $0] } ?? []) + [path])
    }

    /// The lag of `output` (its first channel) against recorder `r`'s microphone on a perfect clock from clip `c`'s
    /// start, ms, at 2 s windows every 4 s over its first `seconds` (default: the clip's) where the correlation is
    /// clear: the ideal is rendered from the scene's numbers, never from driftfix's output. Two seconds hold syllables
    /// of several pitches, so no pitch period can pass for the lag.
    public func lagsAgainstIdeal(
        _ output: [Float], channels: Int = 1, clip c: Int, recorder r: Int = 0, seconds: Double? = nil
    ) -> [Double] {
        let rate = sampleRate
        var ideal = recorder(r)
        ideal.offset = clips[c].start
        ideal.driftPPM = 0
        ideal.dropouts = []
        ideal.wander = nil
        ideal.seconds = seconds ?? clips[c].seconds
        let truth = ideal.recording()
        let mono = channels == 1 ? output : stride(from: 0, to: output.count, by: channels).map { output[$0] }
        let window = 2 * rate
        var lags: [Double] = []
        var at = rate / 2
        while at + window + rate / 100 < min(truth.count, mono.count) {
            let (lag, correlation) = SignalMeasure.windowLag(
                actual: mono, ideal: truth, at: at, window: window, maxLag: rate / 100)
            if correlation > 0.6 { lags.append(lag / Double(rate) * 1000) }
            at += 4 * rate
        }
        return lags
    }
}

extension Shoot {
    /// The smallest sound night with both rounds: one recorder of 180 s whose clock runs 95 ppm fast and two camera
    /// clips it heard (40 s from 15 s, 45 s from 100 s), written under `root` as `audio/REC0001.WAV` and
    /// `camera/A001.MP4`, `camera/A002.MP4`.
    public static func smallNight(in root: String) throws -> Shoot {
        let shoot = Shoot(
            sound: .speech, seed: 47, sampleRate: 16000,
            recorders: [Shoot.Recorder(start: -5, seconds: 180, driftPPM: 95)],
            clips: [Shoot.Clip(start: 15, seconds: 40), Shoot.Clip(start: 100, seconds: 45)])
        try FileManager.default.createDirectory(atPath: root + "/audio", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/camera", withIntermediateDirectories: true)
        try shoot.writeRecorder(0, to: root + "/audio/REC0001.WAV")
        for c in shoot.clips.indices { try shoot.writeCameraClip(c, to: root + "/camera/A00\(c + 1).MP4") }
        return shoot
    }
}
