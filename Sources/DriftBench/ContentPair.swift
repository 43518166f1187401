import ArgumentParser
import DriftAudio
import DriftFixtures
import Foundation

/// Writes a recording and a reference of one scene heard by two microphones, with known timing (the truth for
/// content-measurement benchmarks): a close stereo recorder on a faulty clock and a distant, reverberant mono
/// reference on the true clock.
struct ContentPair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content-pair", abstract: "Write a recording/reference pair with known offset, drift and dropouts."
    )

    enum Sound: String, ExpressibleByArgument { case speech, music, loop }

    @Argument(help: "The recording to write (WAV, 24-bit).") var recording: String
    @Argument(help: "The reference's sound to write (WAV, mono).") var reference: String
    @Option var seconds: Double = 600
    @Option var rate: Int = 48_000
    @Option(parsing: .unconditional, help: "Reference time of the recording's first frame, seconds.") var offset:
        Double = 0
    @Option(parsing: .unconditional, help: "Clock drift, ppm (recording duration / reference duration − 1).") var drift:
        Double = 0
    @Option(help: "Dropouts as AT:MS, comma-separated (recording seconds : milliseconds lost).") var dropouts: String =
        ""
    @Option var sound: Sound = .speech
    @Option var seed: UInt64 = 1
    @Option(help: "Channels of the recording.") var channels: Int = 2
    @Option(
        help:
            "The clock wandering beyond --drift (its drift at the start): ramp:PPM (to PPM at the end), cycle:PPM:SECONDS (± PPM with that period) or step:SECONDS:PPM (PPM from that recording time)."
    )
    var wander: String?

    /// `--wander` as a clock.
    func clock() throws -> ClockWander? {
        guard let wander else { return nil }
        let parts = wander.split(separator: ":").map(String.init)
        let numbers = parts.dropFirst().compactMap(Double.init)
        switch (parts.first, numbers.count) {
        case ("ramp", 1) where parts.count == 2: return .ramp(endPPM: numbers[0], overSeconds: seconds)
        case ("cycle", 2) where parts.count == 3: return .cycle(amplitudePPM: numbers[0], periodSeconds: numbers[1])
        case ("step", 2) where parts.count == 3: return .step(atSeconds: numbers[0], toPPM: numbers[1])
        default: throw ValidationError("--wander \(wander): give ramp:PPM, cycle:PPM:SECONDS or step:SECONDS:PPM")
        }
    }

    func run() throws {
        var gaps: [(at: Double, missing: Double)] = []
        for item in dropouts.split(separator: ",") {
            let parts = item.split(separator: ":")
            guard parts.count == 2, let at = Double(parts[0]), let ms = Double(parts[1]) else {
                throw ValidationError("--dropouts: \(item) is not AT:MS")
            }
            gaps.append((at, ms / 1000))
        }
        let kind: TwoMicrophones.Sound = sound == .speech ? .speech : sound == .music ? .music : .loop
        var scene = TwoMicrophones(
            sampleRate: rate, seconds: seconds, offset: offset, driftPPM: drift, dropouts: gaps,
            sound: kind, seed: seed)
        scene.wander = try clock()
        try scene.write(.recording, to: recording, channels: channels)
        try scene.write(.reference, to: reference, channels: 1, encoding: .pcm16)
    }
}
