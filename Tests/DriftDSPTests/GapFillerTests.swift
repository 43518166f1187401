import DriftCore
import DriftDSP
import DriftFixtures
import Foundation
import Testing

/// Dropout re-insertion against signals whose missing part is known: the truth is the signal that was never lost.
@Suite struct GapFillerTests {
    /// A harmonic tone (a sung vowel) sampled at `rate`, `frames` long, 2 channels (the second at half level).
    func tone(frames: Int, rate: Int = 48000, f0: Double = 187.3) -> [Float] {
        var out = [Float](repeating: 0, count: frames * 2)
        for n in 0..<frames {
            var v = 0.0
            for h in 1...6 {
                v += 0.3 / Double(h) * sin(2 * .pi * f0 * Double(h) * Double(n) / Double(rate) + Double(h))
            }
            out[2 * n] = Float(v)
            out[2 * n + 1] = Float(0.5 * v)
        }
        return out
    }

    /// `signal` with the frames in `cuts` (start, count) removed, as a recorder that lost them would hold it.
    func losing(_ signal: [Float], _ cuts: [(Int, Int)], channels: Int = 2) -> [Float] {
        var out: [Float] = []
        var at = 0
        for (start, count) in cuts {
            out += signal[(at * channels)..<(start * channels)]
            at = start + count
        }
        return out + signal[(at * channels)...]
    }

    @Test("every recorded frame passes bit for bit, and each gap gets exactly its frames")
    func untouchedBetweenGaps() throws {
        let truth = tone(frames: 96000)
        let cuts = [(10000, 1000), (40000, 37), (70000, 4800)]
        let recorded = losing(truth, cuts)
        var gaps: [GapFiller.Gap] = []
        var removed = 0
        for (start, count) in cuts {
            gaps.append(GapFiller.Gap(at: Int64(start - removed), frames: Int64(count)))
            removed += count
        }
        let filler = GapFiller(MemoryAudioSource(recorded, channels: 2), gaps: gaps, sampleRate: 48000)
        #expect(filler.frameCount == 96000)
        let out = try drain(filler, blockFrames: 999)
        #expect(out.count == truth.count)
        // Outside the cuts the output is the recording itself, moved back to where it belongs.
        var inGap = [Bool](repeating: false, count: 96000)
        for (start, count) in cuts { for i in start..<(start + count) { inGap[i] = true } }
        var mismatched = 0
        for i in 0..<96000 where !inGap[i] {
            if out[2 * i] != truth[2 * i] || out[2 * i + 1] != truth[2 * i + 1] { mismatched += 1 }
        }
        #expect(mismatched == 0)
    }

    @Test("a fill continues a steady sound without a click", arguments: [37, 480, 1022, 4800])
    func continuesTheWaveform(gap: Int) throws {
        let truth = tone(frames: 48000)
        let start = 20011
        let recorded = losing(truth, [(start, gap)])
        let filler = GapFiller(
            MemoryAudioSource(recorded, channels: 2),
            gaps: [GapFiller.Gap(at: Int64(start), frames: Int64(gap))], sampleRate: 48000)
        let out = try drain(filler)
        // The steepest step between neighbouring samples in the original sound, and in and around the fill.
        func steepest(_ range: Range<Int>) -> Float {
            var worst: Float = 0
            for i in range.dropFirst() { worst = max(worst, abs(out[2 * i] - out[2 * (i - 1)])) }
            return worst
        }
        let around = steepest((start - 4800)..<(start - 1))
        let inFill = steepest((start - 1)..<(start + gap + 1))
        #expect(inFill <= around * 1.2, "steepest step \(inFill) in the fill, \(around) in the sound before")
        // A steady tone is repeated in phase: the fill is the lost sound to within a fraction of a sample's timing.
        var error = 0.0
        var power = 0.0
        for i in start..<(start + gap) {
            error += pow(Double(out[2 * i] - truth[2 * i]), 2)
            power += pow(Double(truth[2 * i]), 2)
        }
        let snr = 10 * log10(power / max(error, 1e-30))
        #expect(snr > 25, "fill vs the lost sound: \(snr) dB")
    }

    @Test("gaps at the very start and end fill from the side that exists")
    func edges() throws {
        let truth = tone(frames: 20000)
        let recorded = losing(truth, [(0, 300), (19500, 500)])
        let filler = GapFiller(
            MemoryAudioSource(recorded, channels: 2),
            gaps: [GapFiller.Gap(at: 0, frames: 300), GapFiller.Gap(at: 19200, frames: 500)], sampleRate: 48000)
        let out = try drain(filler)
        #expect(out.count == 40000)
        #expect(Array(out[600..<(19500 * 2)]) == Array(recorded[0..<(19200 * 2)]))
        #expect(out.allSatisfy { $0.isFinite && abs($0) < 1 })
    }

    @Test func leadingSilence() throws {
        let signal = tone(frames: 1000)
        let out = try drain(
            SilencePadding(MemoryAudioSource(signal, channels: 2), frames: 250, side: .leading), blockFrames: 64)
        #expect(out.count == 2500)
        #expect(out[0..<500].allSatisfy { $0 == 0 })
        #expect(Array(out[500...]) == signal)
    }

    @Test func trailingSilence() throws {
        let signal = tone(frames: 1000)
        let padding = SilencePadding(MemoryAudioSource(signal, channels: 2), frames: 250, side: .trailing)
        #expect(padding.frameCount == 1250)
        let out = try drain(padding, blockFrames: 64)
        #expect(out.count == 2500)
        #expect(Array(out[0..<2000]) == signal)
        #expect(out[2000...].allSatisfy { $0 == 0 })
    }
}
