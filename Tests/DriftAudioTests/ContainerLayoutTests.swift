import DriftCore
import DriftFixtures
import Foundation
import Testing

@testable import DriftAudio

/// Bytes in memory, read like a file.
private struct Bytes: ByteReading {
    let data: [UInt8]
    var size: Int64 { Int64(data.count) }
    func bytes(at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, offset + Int64(count) <= size else { return nil }
        return Array(data[Int(offset)..<Int(offset) + count])
    }
}

private func layout(_ bytes: [UInt8], modulus: Int64 = 1 << 32) -> ContainerLayout? {
    ContainerLayout.$wrapModulus.withValue(modulus) { ContainerLayout.read(Bytes(data: bytes)) }
}

private let audio = [UInt8](repeating: 0x11, count: 4000)  // 1000 stereo 16-bit frames

@Suite("Chunk layout: audio a header hides")
struct ContainerLayoutTests {
    @Test(
        "an honest WAV, with or without trailing chunks and padding, is consistent",
        arguments: [
            ("nothing after the data", [UInt8]()),
            ("LIST/INFO", WaveBytes.chunk("LIST", Array("INFOISFT".utf8) + WaveBytes.le32(6) + Array("rec 1\0".utf8))),
            (
                "id3, iXML and axml",
                WaveBytes.chunk("id3 ", [UInt8](repeating: 7, count: 33))
                    + WaveBytes.chunk("iXML", Array("<BWFXML/>".utf8)) + WaveBytes.chunk("axml", Array("<x/>".utf8))
            ),
            ("zero padding to a sector", [UInt8](repeating: 0, count: 3000)),
        ])
    func honest(_ name: String, after: [UInt8]) throws {
        let found = try #require(layout(WaveBytes.file(channels: 2, audio: audio, after: after)))
        #expect(found.verdict == .consistent, "\(name)")
        #expect(found.claimedDataBytes == 4000 && found.dataBytes == 4000 && found.dataOffset == 44)
        #expect(found.sampleByteOrder == .little && found.blockAlign == 4)
    }

    @Test("a data size that is simply too small: the hidden bytes are counted")
    func tooSmall() throws {
        let found = try #require(layout(WaveBytes.file(channels: 2, audio: audio, statedDataBytes: 2400)))
        #expect(found.verdict == .hidden(followingBytes: 1600))
        // Junk that is no chunk after an honest data chunk hides nothing audible but is not accounted for either.
        let junk = try #require(
            layout(WaveBytes.file(channels: 2, audio: audio, after: Array("not a chunk at all".utf8))))
        #expect(junk.verdict == .hidden(followingBytes: 18))
    }

    @Test("a data size larger than the file is truncation")
    func truncated() throws {
        let found = try #require(layout(WaveBytes.file(channels: 2, audio: audio, statedDataBytes: 9000)))
        #expect(found.verdict == .truncated(availableBytes: 4000))
    }

    @Test("a size wrapped at the modulus is recognised, with trailing chunks after the true end too")
    func wrapped() throws {
        // 4000 bytes of audio stated modulo 1024: 4000 = 928 + 3 × 1024.
        let plain = try #require(layout(WaveBytes.file(channels: 2, audio: audio, statedDataBytes: 928), modulus: 1024))
        #expect(plain.verdict == .wrapped(trueBytes: 4000) && plain.dataBytes == 4000)
        let list = WaveBytes.chunk("LIST", Array("INFOICMT".utf8) + WaveBytes.le32(4) + Array("abc\0".utf8))
        let followed = try #require(
            layout(
                WaveBytes.file(channels: 2, audio: audio, statedDataBytes: 928, after: list),
                modulus: 1024))
        #expect(followed.verdict == .wrapped(trueBytes: 4000))
        #expect(followed.trailingChunks == ["LIST"])
        // Bytes that fit no multiple of the modulus are not a wrap: refused as hidden.
        let odd = try #require(layout(WaveBytes.file(channels: 2, audio: audio, statedDataBytes: 900), modulus: 1024))
        #expect(odd.verdict == .hidden(followingBytes: 3100))
    }

    @Test("RF64 reads its 64-bit data size from ds64 and checks it the same way; it cannot wrap")
    func rf64() throws {
        func rf64(stated: UInt64) -> [UInt8] {
            let ds64 = WaveBytes.chunk(
                "ds64",
                [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8((stated >> (8 * $0)) & 0xFF) }
                    + [UInt8](repeating: 0, count: 12))
            var bytes = WaveBytes.file(channels: 2, audio: audio, statedDataBytes: 0xFFFF_FFFF, before: ds64)
            bytes.replaceSubrange(0..<4, with: Array("RF64".utf8))
            return bytes
        }
        #expect(try #require(layout(rf64(stated: 4000))).verdict == .consistent)
        #expect(try #require(layout(rf64(stated: 3000), modulus: 1000)).verdict == .hidden(followingBytes: 1000))
    }

    @Test("AIFF: the SSND size is checked too")
    func aiff() throws {
        func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + be32(UInt32(body.count)) + body }
        let comm = chunk("COMM", [0, 2] + be32(1000) + [0, 16] + [0x40, 0x0E, 0xBB, 0x80, 0, 0, 0, 0, 0, 0])
        func file(stated: UInt32) -> [UInt8] {
            let body = Array("AIFF".utf8) + comm + Array("SSND".utf8) + be32(stated + 8) + be32(0) + be32(0) + audio
            return Array("FORM".utf8) + be32(UInt32(body.count)) + body
        }
        let honest = try #require(layout(file(stated: 4000)))
        #expect(honest.verdict == .consistent && honest.sampleByteOrder == .big && honest.blockAlign == 4)
        #expect(try #require(layout(file(stated: 2000))).verdict == .hidden(followingBytes: 2000))
    }

    @Test("not a walked family: no layout, libsndfile's own checks apply")
    func other() {
        #expect(layout(Array("fLaC".utf8) + [UInt8](repeating: 0, count: 100)) == nil)
        #expect(layout([]) == nil)
    }

    @Test("the speaker mask and its offset are read from a WAVE_FORMAT_EXTENSIBLE header")
    func mask() throws {
        let found = try #require(layout(WaveBytes.file(channels: 2, audio: audio, mask: 0x3)))
        #expect(found.channelMask == 0x3)
        #expect(found.channelMaskOffset == Int64(12 + 8 + 20))
    }
}
