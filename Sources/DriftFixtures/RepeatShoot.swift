import DriftAudio
import DriftCore
import Foundation

/// A recorder that holds a block of sound twice - the same samples, as a playback desk feeds a song at two takes - with
/// sound of its own around it, and a camera's clips: one from inside the block (its sound occurs at two places, or
/// at one where the recorder stopped before the second copy was whole) and one from sound heard once. The truth for
/// "never a guess": a clip whose sound occurs twice is cut only where a witness chooses, and unique sound is found.
///
/// The recorder's sample at time p is the scene's close microphone at scene time `sceneTime(p)`: the scene itself,
/// except that from `secondStart` on, for `blockSeconds`, it is the block again (the scene from `firstStart`). A
/// negative gap makes the copies overlap: the second starts before the first has ended, so the block's beginning
/// occurs twice, `distance` apart. The clips are the scene through the camera's distant microphone.
public struct RepeatShoot: Sendable {
    public var sampleRate = 16000
    /// Seconds of sound before the first copy.
    public var leadSeconds: Double
    public var blockSeconds: Double
    /// From the end of the first copy to the start of the second (0: adjacent, negative: overlapping).
    public var gapSeconds: Double
    /// The recorder's length; shorter than the second copy's end: it stopped before that copy was whole.
    public var recorderSeconds: Double
    /// The clip of the block: where in the block it starts, and its length.
    public var clipInBlock: Double
    public var clipSeconds: Double
    /// A clip of sound the recorder heard once (recorder seconds, length), if there is room for one.
    public var uniqueClip: (start: Double, seconds: Double)?
    public var seed: UInt64

    public init(
        leadSeconds: Double, blockSeconds: Double, gapSeconds: Double, recorderSeconds: Double, clipInBlock: Double,
        clipSeconds: Double, uniqueClip: (start: Double, seconds: Double)? = nil, seed: UInt64
    ) {
        self.leadSeconds = leadSeconds
        self.blockSeconds = blockSeconds
        self.gapSeconds = gapSeconds
        self.recorderSeconds = recorderSeconds
        self.clipInBlock = clipInBlock
        self.clipSeconds = clipSeconds
        self.uniqueClip = uniqueClip
        self.seed = seed
    }

    public var firstStart: Double { leadSeconds }
    public var secondStart: Double { leadSeconds + blockSeconds + gapSeconds }
    /// From the first copy's start to the second's.
    public var distance: Double { blockSeconds + gapSeconds }

    /// Scene time of recorder time `p`.
    public func sceneTime(_ p: Double) -> Double {
        p >= secondStart && p < secondStart + blockSeconds ? firstStart + (p - secondStart) : p
    }

    /// Where the block's clip starts in the recorder: at the first copy, and at the second where the recorder holds it
    /// whole. One place: its sound is heard once.
    public var blockClipPlaces: [Double] {
        let first = firstStart + clipInBlock
        let second = secondStart + clipInBlock
        // The first copy holds the clip only where the second has not overwritten it yet.
        var places: [Double] = []
        if first + clipSeconds <= secondStart { places.append(first) }
        if second + clipSeconds <= recorderSeconds { places.append(second) }
        return places
    }

    /// Random shoots over the ranges "never a guess" must hold in: blocks of 3-30 s, copies from overlapping by half a
    /// block to 120 s apart, recorders 1.05 to 10 times the block's clip.
    public static func random(seed: UInt64) -> RepeatShoot {
        var random = Noise(seed: seed &+ 9001)
        let block = 3 + 27 * random.uniform()
        let gap = random.uniform() < 0.15 ? 0 : -block / 2 + (120 + block / 2) * random.uniform()
        // The clip lies in the part of the block that occurs twice.
        let twice = min(block, block + gap)
        let clip = max(2.5, twice * (0.6 + 0.37 * random.uniform()))
        let inBlock = (twice - min(clip, twice)) * random.uniform()
        let ratio = 1.05 + (10 - 1.05) * random.uniform() * random.uniform()
        // Often a short lead: a recorder barely longer than what it holds twice.
        let lead = 0.2 + 20 * random.uniform() * random.uniform()
        var shoot = RepeatShoot(
            leadSeconds: lead, blockSeconds: block, gapSeconds: gap, recorderSeconds: 0, clipInBlock: inBlock,
            clipSeconds: min(clip, twice), seed: seed)
        // The recorder runs ratio × the clip, or at least past the first copy's clip; in most shoots past the second
        // copy too, so the sound occurs twice.
        shoot.recorderSeconds = max(ratio * shoot.clipSeconds, lead + inBlock + shoot.clipSeconds + 0.5)
        if random.uniform() < 0.7 {
            shoot.recorderSeconds = max(
                shoot.recorderSeconds, shoot.secondStart + block + 2 * random.uniform() * random.uniform())
        }
        // A unique clip where the lead or the gap leaves room for one.
        let room = [(0.5, lead - 0.5), (lead + block + 0.3, shoot.secondStart - 0.3)].filter { $0.1 - $0.0 >= 4 }
        if let (from, to) = room.max(by: { $0.1 - $0.0 < $1.1 - $1.0 }), to <= shoot.recorderSeconds {
            let length = min(to - from, 3 + 12 * random.uniform())
            shoot.uniqueClip = (from + (to - from - length) * random.uniform(), length)
        }
        return shoot
    }

    /// The recorder's file name, the block's clip's and the unique clip's, with `name` in each (shoots written side by
    /// side keep their outputs apart).
    public static func files(_ name: String) -> (recorder: String, blockClip: String, uniqueClip: String) {
        ("REC-\(name).WAV", "C-\(name)-BLOCK.MP4", "C-\(name)-ONCE.MP4")
    }

    /// Writes the recorder (24-bit WAV) and the block's clip and, if any, the unique clip (`files(name)`) into
    /// `folder`: small pictures, the camera's sound coded as AAC 96 kb/s by ffmpeg.
    public func write(to folder: String, name: String) throws {
        let names = Self.files(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let scene = TwoMicrophones(
            sampleRate: sampleRate, seconds: recorderSeconds + blockSeconds + 130, seed: seed)
        let close = scene.recording()
        let distant = scene.reference()
        let rate = Double(sampleRate)
        let frames = Int(recorderSeconds * rate)
        let recorder = (0..<frames).map { close[min(close.count - 1, Int((sceneTime(Double($0) / rate) * rate)))] }
        try writeWAV(recorder, to: "\(folder)/\(names.recorder)", encoding: .pcm24)
        let clipStart = Int((firstStart + clipInBlock) * rate)
        try writeClip(
            Array(distant[clipStart..<clipStart + Int(clipSeconds * rate)]), to: "\(folder)/\(names.blockClip)",
            in: folder)
        if let unique = uniqueClip {
            let start = Int(unique.start * rate)
            try writeClip(
                Array(distant[start..<start + Int(unique.seconds * rate)]), to: "\(folder)/\(names.uniqueClip)",
                in: folder)
        }
    }

    /// Writes a clip of the scene through the camera's microphone at scene time `start` (recorder time, where the
    /// recorder heard it once; beyond its end, sound it never heard) into `folder` as `name`.
    public func writeClip(at start: Double, seconds: Double, named name: String, in folder: String) throws {
        let scene = TwoMicrophones(
            sampleRate: sampleRate, seconds: recorderSeconds + blockSeconds + 130, seed: seed)
        let distant = scene.reference()
        let rate = Double(sampleRate)
        let first = Int(start * rate)
        try writeClip(Array(distant[first..<first + Int(seconds * rate)]), to: "\(folder)/\(name)", in: folder)
    }

    private func writeWAV(_ samples: [Float], to path: String, encoding: SampleEncoding) throws {
        let format = AudioFormat(container: .wav, encoding: encoding, sampleRate: sampleRate, channelCount: 1)
        let writer = try AudioFileWriter(path: path, format: format, metadata: AudioMetadata())
        try samples.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try writer.write(base, frames: buffer.count)
        }
        try writer.close()
    }

    private func writeClip(_ samples: [Float], to path: String, in folder: String) throws {
        let sound = "\(folder)/.camera-\(UUID().uuidString).wav"
        try writeWAV(samples, to: sound, encoding: .pcm16)
        defer { unlink(sound) }
        _ = try runTool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=25", "-i", sound,
                "-t", String(Double(samples.count) / Double(sampleRate)), "-c:v", "libx264", "-preset", "ultrafast",
                "-c:a", "aac", "-b:a", "96k", path,
            ])
    }
}
