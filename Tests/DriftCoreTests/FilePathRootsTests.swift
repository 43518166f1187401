import DriftCore
import Foundation
import Testing

import struct SystemPackage.FilePath

/// The one path type's rules against the kernel: random paths over a real tree (links inside and out, a link to an
/// ancestor, a name that is not UTF-8, `..`, `.`, doubled and trailing slashes), each resolved by `FilePath` and by
/// the kernel's realpath(3) where the whole path exists, and by an independent resolver written here (lstat and
/// readlink, component by component, as the kernel walks a path) where it does not.
@Suite("FilePath: resolution, containment and extensions, against the kernel")
struct FilePathRootsTests {
    /// A tree: root/{a/f.wav, b, c/d, la -> a, lout -> outside, c/up -> .., loop -> root, <0xFF>/g.wav},
    /// outside/x; returns (root, outside) as bytes.
    static func makeTree() throws -> (root: [UInt8], outside: [UInt8], base: [UInt8]) {
        var template = Array("/tmp/driftfix-paths-XXXXXX".utf8) + [0]
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { mkdtemp($0) }
        }
        try #require(made != nil)
        let base = Array(template.dropLast())
        let root = base + Array("/root".utf8)
        let outside = base + Array("/outside".utf8)
        func path(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
        for folder in [
            root, outside, root + Array("/a".utf8), root + Array("/b".utf8), root + Array("/c".utf8),
            root + Array("/c/d".utf8), outside + Array("/x".utf8), root + [UInt8(ascii: "/"), 0xFF],
        ] {
            #expect(mkdir(path(folder), 0o755) == 0)
        }
        for file in [root + Array("/a/f.wav".utf8), root + [UInt8(ascii: "/"), 0xFF] + Array("/g.WAV".utf8)] {
            let descriptor = open(path(file), O_CREAT | O_WRONLY, 0o644)
            #expect(descriptor >= 0)
            close(descriptor)
        }
        for (target, link) in [
            (Array("a".utf8), root + Array("/la".utf8)), (outside, root + Array("/lout".utf8)),
            (Array("..".utf8), root + Array("/c/up".utf8)), (root, root + Array("/loop".utf8)),
        ] {
            #expect(symlink(path(target), path(link)) == 0)
        }
        return (root, outside, base)
    }

    /// The bytes of a C string.
    static func bytes(_ text: UnsafePointer<CChar>) -> [UInt8] {
        UnsafeBufferPointer(start: text, count: strlen(text)).map { UInt8(bitPattern: $0) }
    }

    static func bytes(_ path: FilePath) -> [UInt8] { path.withPlatformString { bytes($0) } }

    static func filePath(_ bytes: [UInt8]) -> FilePath {
        let text = bytes.map { CChar(bitPattern: $0) } + [0]
        return text.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    }

    /// realpath(3) on bytes; nil when the kernel cannot resolve the whole path.
    static func kernelRealpath(_ path: [UInt8]) -> [UInt8]? {
        let text = path.map { CChar(bitPattern: $0) } + [0]
        guard let resolved = realpath(text, nil) else { return nil }
        defer { free(resolved) }
        return bytes(resolved)
    }

    /// The independent resolver: components walked as the kernel walks them (lstat, readlink, `..` from the real
    /// folder reached); after the first missing component the rest is read by its text (nothing there can be a
    /// link).
    static func referenceResolve(_ path: [UInt8]) -> [UInt8] {
        var pending = path.split(separator: UInt8(ascii: "/")).map(Array.init)
        var stack: [[UInt8]] = []
        var missing = false
        var links = 0
        while !pending.isEmpty {
            let component = pending.removeFirst()
            if component == Array(".".utf8) { continue }
            if component == Array("..".utf8) {
                if !stack.isEmpty { stack.removeLast() }
                continue
            }
            let candidate = stack + [component]
            if missing {
                stack = candidate
                continue
            }
            let text = candidate.flatMap { [UInt8(ascii: "/")] + $0 }.map { CChar(bitPattern: $0) } + [0]
            var info = stat()
            guard lstat(text, &info) == 0 else {
                missing = true
                stack = candidate
                continue
            }
            if (info.st_mode & S_IFMT) == S_IFLNK, links < 40 {
                links += 1
                var buffer = [CChar](repeating: 0, count: 4096)
                let count = readlink(text, &buffer, buffer.count)
                let target = buffer[..<max(0, count)].map { UInt8(bitPattern: $0) }
                if target.first == UInt8(ascii: "/") { stack = [] }
                pending = target.split(separator: UInt8(ascii: "/")).map(Array.init) + pending
                continue
            }
            stack = candidate
        }
        return stack.isEmpty ? Array("/".utf8) : stack.flatMap { [UInt8(ascii: "/")] + $0 }
    }

    static func isInside(_ path: [UInt8], _ root: [UInt8]) -> Bool {
        path == root
            || (path.count > root.count && Array(path.prefix(root.count)) == root
                && path[root.count] == UInt8(ascii: "/"))
    }

    @Test(
        "random paths: resolution agrees with realpath(3) where the path exists, and with a kernel-style walk where it does not; containment and the roots' verdict follow"
    )
    func againstTheKernel() throws {
        let tree = try Self.makeTree()
        defer { _ = try? FileManager.default.removeItem(atPath: String(decoding: tree.base, as: UTF8.self)) }
        let realRoot = try #require(Self.kernelRealpath(tree.root))
        let roots = PathRoots([Self.filePath(tree.root)])
        let words: [[UInt8]] =
            [
                "a", "b", "c", "d", "la", "lout", "up", "loop", "..", ".", "", "x", "missing", "f.wav",
            ].map { Array($0.utf8) } + [[0xFF], Array("g.WAV".utf8)]
        var generator = SystemRandomNumberGenerator()
        var existing = 0
        var checked = 0
        for _ in 0..<3000 {
            var path = tree.root
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                path += [UInt8(ascii: "/")] + words.randomElement(using: &generator)!
            }
            if Bool.random(using: &generator) { path += [UInt8(ascii: "/")] }
            let filePath = Self.filePath(path)
            let resolved = Self.bytes(filePath.resolvingLinks())
            let truth: [UInt8]
            if let kernel = Self.kernelRealpath(path) {
                truth = kernel
                existing += 1
                #expect(Self.bytes(try #require(filePath.realPath())) == kernel, "\(filePath)")
            } else {
                truth = Self.referenceResolve(path)
                #expect(filePath.realPath() == nil || path.last == UInt8(ascii: "/"), "\(filePath)")
            }
            #expect(
                resolved == truth,
                "\(filePath): \(String(decoding: resolved, as: UTF8.self)) ≠ \(String(decoding: truth, as: UTF8.self))")
            let inside = Self.isInside(truth, realRoot)
            #expect(filePath.resolvingLinks().isInside(Self.filePath(realRoot)) == inside, "\(filePath)")
            #expect((roots.outsideReason(filePath) == nil) == inside, "\(filePath)")
            checked += 1
        }
        #expect(checked == 3000)
        #expect(existing > 300, "the walk reaches existing paths often enough to test them: \(existing)")
    }

    @Test(
        "paths carried as text (PathText) resolve on the bytes they stand for: a link whose name is not UTF-8, a file below it"
    )
    func textResolvesOnItsBytes() throws {
        let (root, _, _) = try Self.makeTree()
        func path(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
        // A link named l<0xFF> to a, beside the folder named <0xFF>.
        let link = root + [UInt8(ascii: "/"), UInt8(ascii: "l"), 0xFF]
        #expect(symlink(path(Array("a".utf8)), path(link)) == 0)
        let real = try #require(Self.kernelRealpath(root))
        let text = PathText.text(link + Array("/f.wav".utf8))
        #expect(PathText.realPath(text) == PathText.text(real + Array("/a/f.wav".utf8)))
        #expect(PathText.resolvingLinks(text + "/../g") == PathText.text(real + Array("/a/g".utf8)))
        let folder = PathText.text(root + [UInt8(ascii: "/"), 0xFF, UInt8(ascii: "/"), UInt8(ascii: "n")])
        #expect(
            PathText.resolvingLinks(folder)
                == PathText.text(real + [UInt8(ascii: "/"), 0xFF, UInt8(ascii: "/"), UInt8(ascii: "n")]))
        // The same text made into a path by its characters names other bytes, which do not exist.
        #expect(FilePath(text).realPath() == nil)
    }

    @Test("containment is by whole components; trailing and doubled slashes are the same path; / holds everything")
    func containment() {
        #expect(FilePath("/media/a").isInside(FilePath("/media")))
        #expect(FilePath("/media/a").isInside(FilePath("/media/")))
        #expect(FilePath("/media//a/").isInside(FilePath("/media")))
        #expect(!FilePath("/media2/a").isInside(FilePath("/media")))
        #expect(FilePath("/media").isInside(FilePath("/media")))
        #expect(!FilePath("/media").isBelow(FilePath("/media")))
        #expect(FilePath("/anything").isInside(FilePath("/")))
        #expect(FilePath("/media/x/../a").isInside(FilePath("/media")))
        #expect(!FilePath("/media/../etc").isInside(FilePath("/media")))
        #expect(FilePath("/media/a/b.wav").relative(to: FilePath("/media/")) == FilePath("a/b.wav"))
        #expect(FilePath("/media2/a").relative(to: FilePath("/media")) == nil)
    }

    @Test("one extension rule: after the name's last dot, not a leading one, lower case")
    func extensions() {
        #expect(FilePath("/a/take.WAV").lowercasedExtension == "wav")
        #expect(FilePath("/a/.wav").lowercasedExtension == nil)
        #expect(FilePath("/a/take").lowercasedExtension == nil)
        #expect(FilePath("/a/take.").lowercasedExtension == nil)
        #expect(FilePath("/a.d/take").lowercasedExtension == nil)
        #expect(FilePath("/a/take.tar.gz").lowercasedExtension == "gz")
        #expect(FilePath("take.Mov").lowercasedExtension == "mov")
    }
}
