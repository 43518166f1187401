import DriftCore
import DriftFixtures
import Testing

import struct SystemPackage.FilePath

/// The byte-level answers a scan asks of every file, against `FilePath`'s own on random paths: dots, doubled and
/// trailing slashes, `.` and `..`, upper case, non-ASCII letters and names that are nothing but dots.
@Suite("Path bytes: extension, stem and the part below a folder, as FilePath gives them")
struct PathBytesTests {
    static let pieces = ["a", "B", "x", ".", "..", "...", "/", "//", ".WAV", ".wav", "É", "ß", "é.Mp4", "take.01", ""]

    /// `count` paths made of random pieces, from a generator seeded so a failure can be replayed.
    static func randomPaths(_ count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: 0...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined()
        }
    }

    @Test("the lowercased extension of any path")
    func extensions() {
        for path in Self.randomPaths(20_000, seed: 1) + ["a.WAV", ".wav", "a.", "/x/.hidden", "a.b.C/", "É.ÉTÉ"] {
            #expect(FilePath.lowercasedExtension(of: path) == FilePath(path).lowercasedExtension, "\(path)")
        }
    }

    @Test("the stem of any file name")
    func stems() {
        let names = Self.randomPaths(20_000, seed: 2).filter { !$0.contains("/") } + ["a.b.c", ".wav", "a.", "..."]
        #expect(names.count > 1_000)
        for name in names {
            #expect(FilePath.stem(ofName: name) == (FilePath(name).lastComponent?.stem ?? name), "\(name)")
        }
    }

    @Test("the part of a path below a folder, or nil when it is not strictly below")
    func relative() {
        let folders = ["/media", "/media/", "/", "media", "/media/./cam", "/media/../media/cam", "/media//cam"]
        let paths = Self.randomPaths(1_000, seed: 3).flatMap {
            [$0, "/media/" + $0, "/media/cam/" + $0, "media/" + $0]
        }
        for folder in folders {
            let prefix = FolderPrefix(folder)
            let base = FilePath(folder).lexicallyNormalized()
            for path in paths {
                let normal = FilePath(path).lexicallyNormalized()
                let expected = normal != base ? normal.relative(to: base)?.string : nil
                #expect(prefix.relative(path) == expected, "\(path) below \(folder)")
            }
        }
        #expect(FolderPrefix("/media").relative("/media/cam/take.wav") == "cam/take.wav")
        #expect(FolderPrefix("/media").relative("/mediax/take.wav") == nil)
        #expect(FolderPrefix("/media").relative("/media") == nil)
    }
}
