import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftRepair

/// Clocks that wander during a take - warming, cycling, a rate step, a step with a dropout - measured by their sound
/// and repaired along the measured path; a straight clock stays a line. The recordings are the scene sampled on the
/// wandering clock by its exact integral (`ClockWander`), and every output is held to the scene on a perfect clock.
@Suite("Clocks that wander")
struct WanderingClockTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var startPPM: Double
        var wander: ClockWander?
        var model: ContentMeasurement.Model
        var sound: TwoMicrophones.Sound = .speech
        var dropouts: [(at: Double, missing: Double)] = []
        var description: String { name }
    }

    static let seconds = 360.0
    static let cases: [Case] = [
        Case(
            name: "warming: -131 -> -101 ppm", startPPM: -131, wander: .ramp(endPPM: -101, overSeconds: seconds),
            model: .wander),
        Case(
            name: "a heater cycling: -50 ± 15 ppm every 3 min", startPPM: -50,
            wander: .cycle(amplitudePPM: 15, periodSeconds: 180), model: .wander),
        Case(
            name: "re-disciplined: -131 then -31 ppm from 3:00", startPPM: -131,
            wander: .step(atSeconds: 180, toPPM: -31), model: .steps),
        Case(
            name: "a step and a dropout", startPPM: -90, wander: .step(atSeconds: 140, toPPM: 10), model: .steps,
            dropouts: [(at: 250.37, missing: 0.018)]),
        Case(name: "a straight clock stays a line", startPPM: -131, wander: nil, model: .clock),
        Case(
            name: "music on a cycling clock", startPPM: 40, wander: .cycle(amplitudePPM: 12, periodSeconds: 150),
            model: .wander, sound: .music),
    ]

    @Test(
        "measured: the model named, the drift at the start and the end within 0.5 ppm, a step within 2 s; repaired along the path, every moment within 0.1 ms of the perfect clock",
        arguments: cases)
    func wander(_ setup: Case) throws {
        var scene = TwoMicrophones(
            sampleRate: 16000, seconds: Self.seconds, offset: 0.8, driftPPM: setup.startPPM, sound: setup.sound,
            seed: 91)
        scene.wander = setup.wander
        scene.dropouts = setup.dropouts
        let pair = try ContentRepairTests.Pair(scene)
        let outcome = try pair.repair(.content)
        let measured = try #require(outcome.content)
        #expect(measured.model == setup.model, "\(measured.summary)")
        let end = Self.seconds
        if setup.model == .clock {
            #expect(measured.clock == nil)
            #expect(abs((measured.driftPPM ?? 0) - setup.startPPM) < 0.5, "\(measured.summary)")
        } else {
            let clock = try #require(measured.clock, "\(measured.summary)")
            // Where the sound was measured: from its first window to its last.
            #expect(clock.fromSeconds < 2 && clock.toSeconds > end - 2, "\(clock.fromSeconds)...\(clock.toSeconds)")
            #expect(abs(clock.startPPM - scene.driftPPM(at: clock.fromSeconds)) < 0.5, "start \(clock.startPPM)")
            #expect(abs(clock.endPPM - scene.driftPPM(at: clock.toSeconds)) < 0.5, "end \(clock.endPPM)")
            if case .step(let at, let to)? = setup.wander {
                let step = try #require(clock.rateSteps.first, "\(measured.summary)")
                #expect(clock.rateSteps.count == 1 && abs(step.atSeconds - at) < 2, "\(clock.rateSteps)")
                #expect(abs(step.toPPM - to) < 0.5 && abs(step.fromPPM - setup.startPPM) < 0.5)
            }
        }
        #expect(measured.dropouts.count == setup.dropouts.count, "\(measured.dropouts)")
        // The repair followed the path (a straight clock: one ratio) and proved in sync.
        let operations = try #require(outcome.result).method
        #expect((setup.model == .clock) == !operations.contains("along"), "\(operations)")
        #expect((measured.residualMs ?? 99) <= 0.1, "residual \(measured.residualMs ?? -1) ms")
        // A voiced window can peak a pitch period away in this plain correlation (an alias, not the audio's lag):
        // those aside (at most one in ten), every window within 0.1 ms of the perfect clock.
        let lags = try pair.lagsAgainstIdeal(points: 40, skipFirst: 1)
        let aligned = lags.filter { abs($0) <= 1 }
        #expect(lags.count >= 30 && aligned.count * 10 >= lags.count * 9, "lags \(lags) ms")
        #expect(aligned.allSatisfy { abs($0) <= 0.1 }, "lags \(lags) ms")
    }
}
