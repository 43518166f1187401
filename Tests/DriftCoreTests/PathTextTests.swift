import DriftCore
import Foundation
import Testing

import struct SystemPackage.FilePath

@Suite("PathText: a file name's bytes as text that loses none of them")
struct PathTextTests {
    @Test("any bytes come back as they were; valid, composed names are themselves; composed and decomposed stay apart")
    func roundTrip() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for _ in 0..<2000 {
            let name = (0..<Int(next() % 40 + 1)).map { _ in next() }.filter { $0 != 0 }
            #expect(PathText.bytes(of: PathText.text(name)) == name, "\(name)")
        }
        let samples: [[UInt8]] = [
            Array("take01.wav".utf8), Array("café.wav".utf8), Array("cafe\u{301}.wav".utf8), [0x74, 0xFF, 0x2E],
            Array("🎬take.wav".utf8), Array("\u{F7FF}x".utf8), Array("/shoot/Ω/take\u{301}/a\u{F780}.wav".utf8),
            [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        ]
        for name in samples {
            #expect(PathText.bytes(of: PathText.text(name)) == name, "\(name)")
            let path = FilePath(pathText: PathText.text(name))
            #expect(path.pathText == PathText.text(name))
        }
        // Valid composed names are their own text (reports, journals and the wire keep them as they were).
        #expect(PathText.text(Array("/shoot/café/🎬 take 01.wav".utf8)) == "/shoot/café/🎬 take 01.wav")
        // A decomposed name and its composed twin: equal to Swift's ==, so the decomposed one is carried escaped.
        let composed = PathText.text(Array("café.wav".utf8))
        let decomposed = PathText.text(Array("cafe\u{301}.wav".utf8))
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        // For people: \xHH.
        #expect(PathText.shown(PathText.text([0x74, 0xFF, 0x2E])) == "t\\xFF.")
        // For people, a decomposed name is its own bytes: it shows as a file manager shows it.
        #expect(PathText.shown(decomposed) == "cafe\u{301}.wav")
        #expect(Array(PathText.shown(decomposed).utf8) == Array("cafe".utf8) + [0xCC, 0x81] + Array(".wav".utf8))
    }
}
