import DriftAudio
import DriftCore
import Foundation

/// One scene heard by two microphones with known timing: the truth for content-measurement tests.
///
/// The scene is a continuous-time sound, evaluated at any instant (syllables of harmonics and hiss, or notes over a
/// drum beat), so the recording can be sampled on its own faulty clock — a start offset, a rate, time skipped at
/// dropouts — without any resampler of the project's. Each microphone then colours it differently (filters,
/// reverberation on the reference, noise on both). Nothing here uses driftfix's DSP.
public struct TwoMicrophones: Sendable {
    public enum Sound: Sendable {
        /// Syllables with pauses, some of them seconds long.
        case speech
        /// Notes over a drum beat every half second (strong periodic peaks).
        case music
        /// A loop: the same bar over and over, so no place is unique.
        case loop
    }

    public var sampleRate: Int
    public var seconds: Double
    /// Reference time of the recording's first frame (positive: the recording started later).
    public var offset: Double
    /// Header-convention drift: (recording duration / reference duration − 1) × 10⁶.
    public var driftPPM: Double
    /// Gaps in the recording: (recording time, seconds lost).
    public var dropouts: [(at: Double, missing: Double)]
    public var sound: Sound
    public var seed: UInt64
    /// Noise on each microphone, RMS.
    public var noise: Double
    /// Scene time of the reference's first frame (a camera clip rolled later in a long scene).
    public var referenceStart: Double = 0
    /// The reference's length, seconds; nil: until a second after the recording's end.
    public var referenceLength: Double?
    /// The scene's length, seconds; nil: as long as both sides need. Set it alike for every microphone of one scene
    /// (the music scene's notes depend on it).
    public var sceneLength: Double?
    /// Seeds the microphones' own noise and colour apart from the scene (another recorder in the same room).
    public var microphoneSeed: UInt64 = 0
    /// How the recorder's clock wandered beyond `driftPPM` (its drift at the start); nil: a straight clock.
    public var wander: ClockWander?

    public init(
        sampleRate: Int = 16000, seconds: Double, offset: Double = 0, driftPPM: Double = 0,
        dropouts: [(at: Double, missing: Double)] = [], sound: Sound = .speech, seed: UInt64 = 1, noise: Double = 0.003
    ) {
        self.sampleRate = sampleRate
        self.seconds = seconds
        self.offset = offset
        self.driftPPM = driftPPM
        self.dropouts = dropouts
        self.sound = sound
        self.seed = seed
        self.noise = noise
    }

    /// Seconds of scene per second of recording.
    public var speed: Double { 1 / (1 + driftPPM * 1e-6) }

    /// Reference time of recording time `t`.
    public func referenceTime(_ t: Double) -> Double {
        offset + clockSeconds(t) + dropouts.filter { $0.at <= t }.reduce(0) { $0 + $1.missing }
    }

    /// Scene seconds the recorder's clock covered in its first `t` seconds (no dropouts).
    public func clockSeconds(_ t: Double) -> Double {
        guard let wander, t > 0 else { return t * speed }
        return wander.sceneSeconds(at: t, startPPM: driftPPM)
    }

    /// The recorder's drift at recording time `t`, ppm.
    public func driftPPM(at t: Double) -> Double { wander?.driftPPM(at: t, startPPM: driftPPM) ?? driftPPM }

    /// Recording time of reference time `r` (the inverse of `referenceTime`, by bisection; in a dropout's lost time,
    /// the first frame after it).
    public func recordingTime(ofReference r: Double) -> Double {
        var (low, high) = (-10.0 - abs(offset) - 1e4, seconds + 10 + abs(offset) + 1e4)
        for _ in 0..<200 where high - low > 1e-12 {
            let middle = (low + high) / 2
            if referenceTime(middle) < r { low = middle } else { high = middle }
        }
        return high
    }

    /// The recording: the scene on the faulty clock, through a close microphone (bright, little noise).
    public func recording() -> [Float] { MicrophoneStream(self, side: .recording).all() }

    /// The reference: the scene on the true clock from time 0, through a distant microphone (dull, reverberant,
    /// noisier), `referenceSeconds` long.
    public func reference() -> [Float] { MicrophoneStream(self, side: .reference).all() }

    /// A recording time at or after `t` whose scene moment lies inside a sound (a syllable, a note), `margin` seconds
    /// from its edges: where a dropout changes the sound, so its place can be measured.
    public func soundingTime(after t: Double, margin: Double = 0.03) -> Double {
        let scene = Scene(sound: sound, seed: seed, length: sceneSeconds)
        var candidate = t
        while candidate < seconds {
            let moment = referenceTime(candidate)
            if scene.events.contains(where: {
                $0.start + margin <= moment && moment <= $0.start + $0.duration - margin && $0.partials.count > 4
            }) {
                return candidate
            }
            candidate += 0.005
        }
        return t
    }

    /// The reference runs past the recording's end by a second (a camera stopped after the recorder), unless its
    /// length is given.
    public var referenceSeconds: Double { referenceLength ?? max(1, referenceTime(seconds) + 1) }

    /// The scene's length: what both sides hear, and two seconds more.
    public var sceneSeconds: Double {
        sceneLength ?? max(referenceStart + referenceSeconds, referenceTime(seconds)) + 2
    }

    /// Frames in the recording and in the reference.
    public var recordingFrames: Int { Int(seconds * Double(sampleRate)) }
    public var referenceFrames: Int { Int(referenceSeconds * Double(sampleRate)) }

    /// Writes one side to `path` through the project's writer, streaming (a one-hour pair needs no memory):
    /// `channels` copies of the microphone, each with noise of its own beyond the first.
    /// `timeReference`: a BWF `bext` start time (samples since midnight), 0 for none.
    public func write(
        _ side: MicrophoneStream.Side, to path: String, channels: Int = 1, encoding: SampleEncoding = .pcm24,
        timeReference: UInt64 = 0
    ) throws {
        let stream = MicrophoneStream(self, side: side)
        let format = AudioFormat(container: .wav, encoding: encoding, sampleRate: sampleRate, channelCount: channels)
        let metadata = AudioMetadata(
            broadcastInfo: timeReference > 0 ? BroadcastInfo(timeReference: timeReference) : nil)
        let writer = try AudioFileWriter(path: path, format: format, metadata: metadata)
        var mono = [Float](repeating: 0, count: 16384)
        var frames = [Float](repeating: 0, count: 16384 * channels)
        var extra = Noise(seed: seed &+ 77)
        while true {
            let got = mono.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, count: $0.count) }
            if got == 0 { break }
            for i in 0..<got {
                for c in 0..<channels {
                    frames[i * channels + c] = c == 0 ? mono[i] : mono[i] + Float(noise * extra.gaussian())
                }
            }
            try frames.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: got) }
        }
        try writer.close()
    }
}

extension TwoMicrophones {
    /// A recorder's WAV (two channels) beside a camera's MP4 of the same name (a small picture, and the scene as the
    /// camera's microphone heard it, coded as AAC 96 kb/s by ffmpeg): a pair whose timing the scene's parameters know.
    public func writeCameraPair(folder: String, name: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try write(.recording, to: "\(folder)/\(name).wav", channels: 2)
        let sound = "\(folder)/.\(name)-camera.wav"
        try write(.reference, to: sound, encoding: .pcm16)
        _ = try runTool(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=25", "-i", sound,
                "-t", String(referenceSeconds), "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                "-b:a", "96k", "\(folder)/\(name).mp4",
            ])
        unlink(sound)
    }
}

/// An unrelated scene (another take, another room), for wrong pairings.
public func unrelatedRecording(sampleRate: Int, seconds: Double, seed: UInt64) -> [Float] {
    TwoMicrophones(sampleRate: sampleRate, seconds: seconds, seed: seed &+ 1000).recording()
}

/// The sound itself: events of sinusoidal partials with envelopes, evaluable at any time.
struct Scene {
    struct Event {
        var start: Double
        var duration: Double
        var partials: [(frequency: Double, amplitude: Double, phase: Double)]
        var attack: Double
    }

    var events: [Event] = []

    init(sound: TwoMicrophones.Sound, seed: UInt64, length: Double) {
        var random = Noise(seed: seed)
        switch sound {
        case .speech:
            var t = 0.2
            while t < length {
                let f0 = 100 + 150 * random.uniform()
                let duration = 0.08 + 0.25 * random.uniform()
                let formant = 500 + 2000 * random.uniform()
                var partials: [(Double, Double, Double)] = []
                for h in 1...12 {
                    let f = f0 * Double(h) * (1 + 0.01 * (random.uniform() - 0.5))
                    partials.append(
                        (
                            f, 0.25 / Double(h).squareRoot() * exp(-pow((f - formant) / 900, 2)) + 0.02,
                            2 * .pi * random.uniform()
                        ))
                }
                events.append(Event(start: t, duration: duration, partials: partials, attack: 0.01))
                if random.uniform() < 0.3 {
                    // Hiss: a fricative of scattered high partials.
                    let hiss = (0..<14).map { _ in (1800 + 2000 * random.uniform(), 0.03, 2 * .pi * random.uniform()) }
                    events.append(
                        Event(
                            start: t + duration, duration: 0.05 + 0.1 * random.uniform(), partials: hiss, attack: 0.005)
                    )
                }
                t += duration + 0.05 + 0.2 * random.uniform()
                if random.uniform() < 0.04 { t += 1 + 4 * random.uniform() }  // a pause
            }
        case .music, .loop:
            let bar = 2.0
            var loopNotes: [Event] = []
            var beat = 0.25
            while beat < length {
                let click = (0..<10).map { _ in (1500 + 2500 * random.uniform(), 0.05, 2 * .pi * random.uniform()) }
                events.append(Event(start: beat, duration: 0.03, partials: click, attack: 0.001))
                beat += 0.5
            }
            if sound == .loop {
                var t = 0.0
                while t < bar {
                    let f = 220 * pow(2, Double(Int(random.uniform() * 12)) / 12)
                    let d = 0.25
                    loopNotes.append(
                        Event(
                            start: t, duration: d, partials: (1...4).map { (f * Double($0), 0.1 / Double($0), 0) },
                            attack: 0.02))
                    t += d
                }
                var start = 0.0
                while start < length {
                    for note in loopNotes {
                        var e = note
                        e.start += start
                        events.append(e)
                    }
                    start += bar
                }
            } else {
                var t = 0.1
                while t < length {
                    let f = 220 * pow(2, Double(Int(random.uniform() * 24)) / 12)
                    let d = 0.15 + 0.45 * random.uniform()
                    events.append(
                        Event(
                            start: t, duration: d,
                            partials: (1...4).map { (f * Double($0), 0.1 / Double($0), 2 * .pi * random.uniform()) },
                            attack: 0.02))
                    t += d
                }
            }
        }
        events.sort { $0.start < $1.start }
    }

    /// Adds the scene at times `from + i·step` into `out[at + i]`, for `count` samples.
    func render(into out: inout [Float], at index: Int, count: Int, from t0: Double, step: Double) {
        let tEnd = t0 + Double(count) * step
        // Events are sorted by start and last under a second: begin the scan a second before t0.
        var low = 0
        var high = events.count
        while low < high {
            let mid = (low + high) / 2
            if events[mid].start < t0 - 1 { low = mid + 1 } else { high = mid }
        }
        var envelope: [Double] = []
        envelope.reserveCapacity(count)
        for event in events[low...] {
            if event.start >= tEnd { break }
            guard event.start + event.duration > t0 else { continue }
            // Samples of this run inside the event.
            let first = max(0, Int(((event.start - t0) / step).rounded(.up)))
            let last = min(count - 1, Int(((event.start + event.duration - t0) / step).rounded(.down)))
            guard first <= last else { continue }
            // The envelope once for the run, shared by its partials (the same products, in the same order).
            envelope.removeAll(keepingCapacity: true)
            for i in first...last {
                let t = t0 + Double(i) * step - event.start
                let rise = min(1, t / event.attack)
                let fall = min(1, (event.duration - t) / max(event.attack, 0.02))
                envelope.append(max(0, min(rise, fall)))
            }
            // Four partials at a time, each turning on its own (chains the processor overlaps), added in their
            // order: each sample sums the same values in the same order as partial after partial.
            let tFirst = t0 + Double(first) * step
            let rotors = event.partials.map { Rotor($0, from: tFirst, step: step) }
            out.withUnsafeMutableBufferPointer { out in
                envelope.withUnsafeBufferPointer { envelope in
                    var k = 0
                    while k + 4 <= rotors.count {
                        var (a, b, c, d) = (rotors[k], rotors[k + 1], rotors[k + 2], rotors[k + 3])
                        for i in first...last {
                            let e = envelope[i - first]
                            var v = out[index + i]
                            v += a.sample(e)
                            v += b.sample(e)
                            v += c.sample(e)
                            v += d.sample(e)
                            out[index + i] = v
                        }
                        k += 4
                    }
                    for var rotor in rotors[k...] {
                        for i in first...last { out[index + i] += rotor.sample(envelope[i - first]) }
                    }
                }
            }
        }
    }

    /// One partial from a time on: its sine turned sample by sample.
    private struct Rotor {
        let amplitude: Double
        var rotation: SineRotation

        init(_ partial: (frequency: Double, amplitude: Double, phase: Double), from t: Double, step: Double) {
            let w = 2 * Double.pi * partial.frequency
            rotation = SineRotation(angle: w * t + partial.phase, step: w * step)
            amplitude = partial.amplitude
        }

        @inline(__always) mutating func sample(_ envelope: Double) -> Float {
            let value = Float(amplitude * envelope * rotation.sine)
            rotation.advance()
            return value
        }
    }
}

/// A microphone's colour: first- or second-order high- and low-pass (bilinear one-pole sections in series).
struct Colour {
    /// One order: a one-pole high-pass, then a one-pole low-pass, with their states.
    private struct Order {
        let highpass: Double
        let lowpass: Double
        var highX = 0.0
        var highY = 0.0
        var lowY = 0.0

        init(sampleRate: Int, highpass: Double, lowpass: Double) {
            self.highpass = exp(-2 * .pi * highpass / Double(sampleRate))
            self.lowpass = exp(-2 * .pi * lowpass / Double(sampleRate))
        }

        /// Between syllables the input is exactly 0 and the states decay into subnormal numbers, on which these
        /// sections ran about 80 times slower (6 M samples: 1.88 s against 0.024 s): below 10⁻²⁰⁰ (nothing a sample
        /// can hold) they are 0.
        @inline(__always) mutating func filter(_ x: Double) -> Double {
            highY = highpass * (highY + x - highX)
            highY = abs(highY) < 1e-200 ? 0 : highY
            highX = x
            lowY = (1 - lowpass) * highY + lowpass * lowY
            lowY = abs(lowY) < 1e-200 ? 0 : lowY
            return lowY
        }
    }

    private var first: Order
    private var second: Order?

    init(sampleRate: Int, highpass: Double, lowpass: Double, poles: Int) {
        precondition(poles == 1 || poles == 2, "first or second order")
        first = Order(sampleRate: sampleRate, highpass: highpass, lowpass: lowpass)
        second = poles == 2 ? first : nil
    }

    /// Filters `count` samples of `input` into `output`. The states stay in registers, so the sections of one
    /// sample and the next overlap in the processor.
    mutating func process(_ input: [Float], count: Int, into output: inout [Double]) {
        var first = self.first
        if var second {
            for i in 0..<count { output[i] = second.filter(first.filter(Double(input[i]))) }
            self.second = second
        } else {
            for i in 0..<count { output[i] = first.filter(Double(input[i])) }
        }
        self.first = first
    }
}

/// A seeded generator (SplitMix64) for reproducible scenes and noise.
struct Noise {
    private var state: UInt64
    // The seed is mixed first: SplitMix64's states for nearby seeds are the same sequence shifted, and two
    // microphones' noise must not correlate.
    init(seed: UInt64) { state = Noise.mix(Noise.mix(seed ^ 0x5851_F42D_4C95_7F2D)) }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Noise.mix(state)
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-300)
        let v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
