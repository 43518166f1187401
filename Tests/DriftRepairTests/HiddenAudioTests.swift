import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftAudio
@testable import DriftRepair

@Suite("Audio a header hides: refused, or read to its true end")
struct HiddenAudioTests {
    /// 3 s of stereo 16-bit audio whose header states `audio.count mod modulus` bytes: a wrap by construction.
    static func wrappedFile(_ folder: TemporaryFolder, modulus: Int64, after: [UInt8] = []) throws -> (
        String, TestSignal
    ) {
        let signal = TestSignal(channelCount: 2, length: 144_000, seed: 31, maxCyclesPerSample: 0.2)
        let audio = WaveBytes.pcm16(signal)
        let stated = UInt32(Int64(audio.count) % modulus)
        let path = folder.file("wrapped.wav")
        try Data(WaveBytes.file(channels: 2, audio: audio, statedDataBytes: stated, after: after)).write(
            to: URL(fileURLWithPath: path))
        return (path, signal)
    }

    @Test(
        "a wrapped data size (the same path as a WAV past 4 GiB, at a smaller modulus) is repaired from its true length"
    )
    func wrappedRepair() throws {
        let folder = TemporaryFolder()
        let modulus: Int64 = 1 << 17
        let list = WaveBytes.chunk("LIST", Array("INFOICMT".utf8) + WaveBytes.le32(6) + Array("boom\0\0".utf8))
        let (input, signal) = try HiddenAudioTests.wrappedFile(folder, modulus: modulus, after: list)
        let before = fingerprint(input)
        // The same audio under an honest header: the true data must read back sample for sample the same.
        try Data(WaveBytes.file(channels: 2, audio: WaveBytes.pcm16(signal))).write(
            to: URL(fileURLWithPath: folder.file("honest.wav")))
        let honest = try readAll(folder.file("honest.wav")).samples
        try ContainerLayout.$wrapModulus.withValue(modulus) {
            #expect(try readAll(input).samples == honest)
            let reader = try AudioFileReader(path: input)
            #expect(reader.frameCount == 144_000, "the true length, not the stated \((576_000 % modulus) / 4) frames")
            #expect(
                reader.wrappedHeader
                    == AudioFileReader.WrappedHeader(statedFrames: 576_000 % modulus / 4, trueFrames: 144_000))
            // The clock of this recorder ran 500 ppm slow: the true target is 144,072 frames.
            let target: Int64 = 144_072
            let result = try FileProcessor.run(
                ProcessRequest(
                    input: input, output: folder.file("fixed.wav"), target: .frames(target), quality: .best))
            #expect(result.inputFrames == 144_000 && result.outputFrames == target)
        }
        #expect(fingerprint(input) == before)
        let (samples, format, frames) = try readAll(folder.file("fixed.wav"))
        #expect(frames == 144_072 && format.container == .wav)
        let snr = SignalMeasure.snr(actual: samples, ideal: signal.ideal(target: 144_072, start: 0, count: 144_072))
        // Measured 76 dB: the two 16-bit quantisations of a -18 dBFS multi-tone bound it, not the repair.
        #expect(snr > 70, "SNR \(snr) dB against the ideal through 16-bit in and out")
    }

    @Test("the same file with a real 4 GiB modulus is no wrap: refused, naming both sizes")
    func notAWrapAtFourGiB() throws {
        let folder = TemporaryFolder()
        let (input, _) = try HiddenAudioTests.wrappedFile(folder, modulus: 1 << 17)
        #expect(throws: AudioError.self) { try AudioFileReader(path: input) }
        do {
            _ = try AudioFileReader(path: input)
        } catch {
            guard case .hiddenAudio(let hidden) = error.cause else {
                Issue.record("expected hidden audio, got \(error)")
                return
            }
            #expect(hidden.statedBytes == 576_000 % (1 << 17) && hidden.followingBytes == 576_000 - 576_000 % (1 << 17))
            #expect(
                error.description.contains("states 51712 bytes (12928 frames")
                    && error.description.contains("524288 bytes (131072 frames, 2.7 s) more follow"),
                "\(error)")
        }
        #expect(folder.entries() == ["wrapped.wav"])
    }

    @Test("legitimate chunks after the data are read past, the audio is whole")
    func trailingChunks() throws {
        let folder = TemporaryFolder()
        let signal = TestSignal(channelCount: 2, length: 4_800, seed: 2)
        let after =
            WaveBytes.chunk("LIST", Array("INFOISFT".utf8) + WaveBytes.le32(4) + Array("fw1\0".utf8))
            + WaveBytes.chunk("id3 ", [UInt8](repeating: 3, count: 21))
            + WaveBytes.chunk("iXML", Array("<BWFXML></BWFXML>".utf8))
        let path = folder.file("tags.wav")
        try Data(WaveBytes.file(channels: 2, audio: WaveBytes.pcm16(signal), after: after)).write(
            to: URL(fileURLWithPath: path))
        let reader = try AudioFileReader(path: path)
        #expect(reader.frameCount == 4_800 && reader.wrappedHeader == nil)
        #expect(reader.layout?.trailingChunks == ["LIST", "id3 ", "iXML"])
    }
}
