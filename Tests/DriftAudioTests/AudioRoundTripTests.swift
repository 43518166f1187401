import CSndFile
import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftAudio

/// Formats driftfix must read and write back in the same shape.
let formatCases: [(AudioContainer, SampleEncoding, channels: Int, rate: Int)] = [
    (.wav, .pcmU8, 1, 44_100), (.wav, .pcm16, 2, 44_100), (.wav, .pcm24, 2, 48_000), (.wav, .pcm32, 1, 96_000),
    (.wav, .float32, 6, 48_000), (.wav, .float64, 2, 96_000), (.wavex, .pcm24, 6, 48_000),
    (.rf64, .pcm24, 2, 48_000), (.w64, .float32, 2, 44_100), (.aiff, .pcm16, 2, 44_100), (.aiff, .pcm24, 6, 96_000),
    (.caf, .pcm24, 2, 48_000), (.caf, .float32, 1, 44_100), (.flac, .pcm16, 2, 44_100), (.flac, .pcm24, 6, 96_000),
    (.ogg, .vorbis, 2, 44_100), (.ogg, .opus, 2, 48_000), (.mpeg, .mp3, 2, 44_100),
]

@Suite("Audio file round trips")
struct AudioRoundTripTests {
    @Test(
        "write, reopen, same frames, format and samples (lossless: to the last bit; lossy: each channel within its codec's noise of the signal, no delay left by the codec)",
        arguments: formatCases)
    func roundTrip(container: AudioContainer, encoding: SampleEncoding, channels: Int, rate: Int) throws {
        let folder = TemporaryFolder()
        let frames: Int64 = Int64(rate / 4) + 17
        let signal = TestSignal(channelCount: channels, length: frames, seed: 2, maxCyclesPerSample: 0.2)
        let format = AudioFormat(container: container, encoding: encoding, sampleRate: rate, channelCount: channels)
        let path = try writeRecording(signal, to: folder.file("rt"), format: format)
        let (samples, found, foundFrames) = try readAll(path)
        #expect(foundFrames == frames)
        #expect(found.container == container && found.encoding == encoding)
        #expect(found.sampleRate == rate && found.channelCount == channels)
        #expect(samples.count == Int(frames) * channels)
        guard !encoding.isLossy else {
            try expectNear(samples, signal.recording(start: 0, count: Int(frames)), channels: channels, encoding)
            return
        }
        let bits: Int =
            switch encoding {
            case .pcmU8: 8
            case .pcm16: 16
            default: 24
            }
        let tolerance = Float(1.0) / Float(1 << (bits - 1))
        let expected = signal.recording(start: 0, count: Int(frames))
        let worst = zip(samples, expected).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= tolerance, "largest error \(worst) for \(container) \(encoding)")
    }

    /// The lossy codec's output against the signal: the delay that fits best, searched within 50 ms (a codec's
    /// priming) so that one left in says how much, must be none; and the signal-to-noise ratio there above a floor for
    /// the codec at libsndfile's default quality.
    private func expectNear(_ samples: [Float], _ expected: [Float], channels: Int, _ encoding: SampleEncoding) throws {
        let floor: Double =
            switch encoding {
            // Measured here on this signal at libsndfile's default quality: Vorbis 32.6 and 33.9 dB, Opus 13.5 and
            // 17.4 dB, MP3 31.6 and 39.4 dB; a sample off, or another signal, is near 0 dB.
            case .vorbis: 25
            case .opus: 10
            default: 25
            }
        let frames = samples.count / channels
        let span = frames / 4..<(frames * 3 / 4)
        func channel(_ values: [Float], _ c: Int) -> [Float] {
            stride(from: c, to: values.count, by: channels).map { values[$0] }
        }
        var delays: [Int] = []
        for c in 0..<channels {
            let got = channel(samples, c)
            let want = channel(expected, c)
            let maxDelay = min(frames / 5, 2400)
            var best = (delay: 0, score: -Double.infinity)
            for delay in -maxDelay...maxDelay {
                var score = 0.0
                for i in span where i + delay >= 0 && i + delay < frames {
                    score += Double(got[i + delay]) * Double(want[i])
                }
                if score > best.score { best = (delay, score) }
            }
            delays.append(best.delay)
            let aligned = span.map { got[$0 + best.delay] }
            let ideal = span.map { Double(want[$0]) }
            let snr = SignalMeasure.snr(actual: aligned, ideal: ideal)
            #expect(snr >= floor, "\(encoding) channel \(c): \(snr) dB at a delay of \(best.delay) frames")
        }
        // The reader removes the codec's priming (Opus pre-skip, the encoder's MP3 delay): the samples line up.
        #expect(delays.allSatisfy { $0 == 0 }, "\(encoding): delays by channel: \(delays)")
    }

    @Test("format codes equal libsndfile's constants")
    func constants() {
        #expect(AudioContainer.wav.code == Int32(SF_FORMAT_WAV))
        #expect(AudioContainer.wavex.code == Int32(SF_FORMAT_WAVEX))
        #expect(AudioContainer.rf64.code == Int32(SF_FORMAT_RF64))
        #expect(AudioContainer.w64.code == Int32(SF_FORMAT_W64))
        #expect(AudioContainer.aiff.code == Int32(SF_FORMAT_AIFF))
        #expect(AudioContainer.caf.code == Int32(SF_FORMAT_CAF))
        #expect(AudioContainer.flac.code == Int32(SF_FORMAT_FLAC))
        #expect(AudioContainer.ogg.code == Int32(SF_FORMAT_OGG))
        #expect(AudioContainer.mpeg.code == Int32(SF_FORMAT_MPEG))
        #expect(SampleEncoding.pcmS8.code == Int32(SF_FORMAT_PCM_S8))
        #expect(SampleEncoding.pcmU8.code == Int32(SF_FORMAT_PCM_U8))
        #expect(SampleEncoding.pcm16.code == Int32(SF_FORMAT_PCM_16))
        #expect(SampleEncoding.pcm24.code == Int32(SF_FORMAT_PCM_24))
        #expect(SampleEncoding.pcm32.code == Int32(SF_FORMAT_PCM_32))
        #expect(SampleEncoding.float32.code == Int32(SF_FORMAT_FLOAT))
        #expect(SampleEncoding.float64.code == Int32(SF_FORMAT_DOUBLE))
        #expect(SampleEncoding.ulaw.code == Int32(SF_FORMAT_ULAW))
        #expect(SampleEncoding.alaw.code == Int32(SF_FORMAT_ALAW))
        #expect(SampleEncoding.vorbis.code == Int32(SF_FORMAT_VORBIS))
        #expect(SampleEncoding.opus.code == Int32(SF_FORMAT_OPUS))
        #expect(SampleEncoding.mp3.code == Int32(SF_FORMAT_MPEG_LAYER_III))
        #expect(ByteOrder.little.rawValue == Int32(SF_ENDIAN_LITTLE))
        #expect(ByteOrder.big.rawValue == Int32(SF_ENDIAN_BIG))
        #expect(AudioTag.title.rawValue == Int32(SF_STR_TITLE))
        #expect(AudioTag.genre.rawValue == Int32(SF_STR_GENRE))
    }

    @Test("a WAV that would pass 4 GiB is written as RF64; other containers stay")
    func rf64Upgrade() {
        let wav = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        // 10 hours of 48 kHz stereo 24-bit is 10.4 GB.
        #expect(wav.forWriting(frames: 10 * 3600 * 48_000).container == .rf64)
        #expect(wav.forWriting(frames: 3600 * 48_000).container == .wav)  // 1 hour: 1.04 GB
        // Just below and above the 4 GiB RIFF limit (6 bytes per frame).
        #expect(wav.forWriting(frames: (0xFFFF_FFFF - (1 << 20)) / 6).container == .wav)
        #expect(wav.forWriting(frames: (0xFFFF_FFFF - (1 << 20)) / 6 + 1).container == .rf64)
        var wavex = wav
        wavex.container = .wavex
        #expect(wavex.forWriting(frames: 10 * 3600 * 48_000).container == .rf64)
        var flac = wav
        flac.container = .flac
        #expect(flac.forWriting(frames: 10 * 3600 * 48_000).container == .flac)
    }
}
