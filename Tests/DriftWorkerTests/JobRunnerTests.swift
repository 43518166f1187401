import DriftAudio
import DriftCore
import DriftFixtures
import DriftWire
import Foundation
import Testing

@testable import DriftWorker

@Suite("Job runner")
struct JobRunnerTests {
    private func job(input: String, output: String, root: String, target: Int64 = 4801, inputRoots: [String]? = nil)
        -> JobSpec
    {
        var spec = JobSpec(
            id: 1, attempt: 1, input: input, outputRoot: root,
            work: .header(
                HeaderRepair(
                    output: output, targetFrames: target, method: .resample, methodReason: "test", quality: .fast)))
        spec.inputRoots = inputRoots ?? [(input as NSString).deletingLastPathComponent]
        return spec
    }

    @Test("a job writes inside the output root, verifies, and reports frames and checksum")
    func success() throws {
        let folder = TemporaryFolder()
        let media = TemporaryFolder()
        let input = try writeMonoWAV(frames: 4800, to: media.file("in.wav"))
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let result = JobRunner.run(
            job(input: input, output: folder.file("out/a/b/in.wav"), root: folder.file("out")), worker: "w")
        #expect(result.outcome.columns.succeeded, "\(result.outcome.columns.failure?.message ?? "")")
        #expect(result.outcome.columns.output?.frames == 4801)
        #expect(
            result.outcome.columns.output?.checksum != nil
                && result.outcome.columns.output?.checksum == xxhsum(folder.file("out/a/b/in.wav")))
    }

    @Test("the reported checksum is the one xxHash's own tool prints, on outputs of several read blocks")
    func checksumAgreesWithXXHSum() throws {
        let folder = TemporaryFolder()
        let format = AudioFormat(container: .wav, encoding: .pcm24, sampleRate: 48_000, channelCount: 2)
        let media = TemporaryFolder()
        // 9.2 MB of output: three 4 MiB blocks, the last one partial.
        let length: Int64 = 1_600_000
        let input = try writeRecording(
            TestSignal(channelCount: 2, length: length), to: media.file("long.wav"), format: format)
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let result = JobRunner.run(
            job(input: input, output: folder.file("out/long.wav"), root: folder.file("out"), target: length + 211),
            worker: "w")
        #expect(result.outcome.columns.succeeded, "\(result.outcome.columns.failure?.message ?? "")")
        let expected = try #require(xxhsum(folder.file("out/long.wav")))
        #expect(result.outcome.columns.output?.checksum == expected)
        #expect(expected.hasPrefix("xxh3:") && expected.count == 21)
    }

    @Test(
        "outputs outside the root are refused, never executed",
        arguments: ["../escape.wav", "/tmp/elsewhere.wav", "link/x.wav"])
    func confinement(relative: String) throws {
        let folder = TemporaryFolder()
        let media = TemporaryFolder()
        let input = try writeMonoWAV(frames: 480, to: media.file("in.wav"))
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.file("out/link"), withDestinationPath: folder.path)
        let output = relative.hasPrefix("/") ? relative : folder.file("out/" + relative)
        let result = JobRunner.run(job(input: input, output: output, root: folder.file("out")), worker: "w")
        #expect(!result.outcome.columns.succeeded)
        #expect(!(result.outcome.columns.failure?.retryable ?? false))
        #expect(
            result.outcome.columns.failure?.message.contains("output root") == true
                || result.outcome.columns.failure?.message.contains("..") == true,
            "\(result.outcome.columns.failure?.message ?? "")")
        #expect(
            !FileManager.default.fileExists(atPath: folder.file("x.wav"))
                && !FileManager.default.fileExists(atPath: output.replacingOccurrences(of: "/out/link", with: "")))
    }

    @Test(
        "inputs outside the input roots are refused before anything is read or written",
        arguments: ["/etc/hostname", "media/../secret.wav", "media/escape.wav", "media/missing.wav"])
    func inputConfinement(relative: String) throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("media"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        try writeMonoWAV(frames: 480, to: folder.file("secret.wav"))
        // A link inside the root that leads out of it.
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("media/escape.wav"), withDestinationPath: folder.file("secret.wav"))
        let input = relative.hasPrefix("/") ? relative : folder.file(relative)
        let result = JobRunner.run(
            job(
                input: input, output: folder.file("out/x.wav"), root: folder.file("out"),
                inputRoots: [folder.file("media")]), worker: "w")
        #expect(!result.outcome.columns.succeeded && !(result.outcome.columns.failure?.retryable ?? false))
        let error = result.outcome.columns.failure?.message ?? ""
        #expect(error.hasPrefix(input + ": refused: "), "\(error)")
        #expect(error.contains("outside the input roots") || error.contains("cannot be resolved"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/x.wav")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("out")).isEmpty, "nothing written")
    }

    @Test("an output root that overlaps an input root is refused (a job could write over recordings)")
    func overlappingRoots() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("media/out"), withIntermediateDirectories: true)
        let input = try writeMonoWAV(frames: 480, to: folder.file("media/a.wav"))
        for (root, inputRoots) in [
            (folder.file("media/out"), [folder.file("media")]), (folder.path, [folder.file("media")]),
        ] {
            let result = JobRunner.run(
                job(input: input, output: root + "/x.wav", root: root, inputRoots: inputRoots), worker: "w")
            #expect(
                !result.outcome.columns.succeeded
                    && result.outcome.columns.failure?.message.contains("overlaps the input root") == true,
                "\(result.outcome.columns.failure?.message ?? "")")
            #expect(!FileManager.default.fileExists(atPath: root + "/x.wav"))
        }
    }

    @Test("a FIFO named like a recording is refused at once, not waited on")
    func fifoInput() throws {
        let media = TemporaryFolder()
        let out = TemporaryFolder()
        #expect(mkfifo(media.file("take.wav"), 0o644) == 0)
        let start = Date()
        let result = JobRunner.run(
            job(input: media.file("take.wav"), output: out.file("take.wav"), root: out.path), worker: "w")
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(
            !result.outcome.columns.succeeded
                && result.outcome.columns.failure?.message.contains("not a regular file") == true,
            "\(result.outcome.columns.failure?.message ?? "")")
        #expect(out.entries().isEmpty)
    }

    @Test("a job without input roots reads nothing")
    func noRoots() throws {
        let folder = TemporaryFolder()
        let input = try writeMonoWAV(frames: 480, to: folder.file("in.wav"))
        let result = JobRunner.run(
            job(input: input, output: folder.file("o.wav"), root: folder.path, inputRoots: []), worker: "w")
        #expect(
            !result.outcome.columns.succeeded
                && result.outcome.columns.failure?.message.contains("no input roots") == true)
    }

    @Test("a corrupt input fails for good; a full destination may be retried")
    func failures() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("media"), withIntermediateDirectories: true)
        try "junk".write(toFile: folder.file("media/bad.wav"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let corrupt = JobRunner.run(
            job(input: folder.file("media/bad.wav"), output: folder.file("out/bad.wav"), root: folder.file("out")),
            worker: "w")
        #expect(!corrupt.outcome.columns.succeeded && !(corrupt.outcome.columns.failure?.retryable ?? false))
        #expect(corrupt.outcome.columns.failure?.message.contains("bad.wav") == true)
    }
}

@Suite("Pinned paths: the checked path is the opened path")
struct PinnedPathsTests {
    @Test("a folder swapped for a link after the check cannot lead outside the roots (openat2 refuses)")
    func swapAfterCheck() throws {
        let folder = TemporaryFolder()
        for sub in ["media/day1", "outside", "out/day1", "elsewhere"] {
            try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true)
        }
        try writeMonoWAV(frames: 480, to: folder.file("media/day1/a.wav"))
        try writeMonoWAV(frames: 480, to: folder.file("outside/a.wav"))
        let (input, inputRoot) = (folder.file("media/day1/a.wav"), folder.file("media"))
        let (output, outputRoot) = (folder.file("out/day1/a.wav"), folder.file("out"))
        guard case .success(let checkedInput) = Confinement.check(input: input, roots: [inputRoot]),
            case .success(let checkedOutput) = Confinement.check(output: output, root: outputRoot)
        else {
            Issue.record("the honest paths were refused")
            return
        }
        // Untouched, both pin.
        if case .success(let pinned) = PinnedPaths.pin(
            input: checkedInput, inputRoots: [inputRoot], output: checkedOutput, outputRoot: outputRoot)
        {
            #expect(try readAll(pinned.inputPath).frames == 480)
            pinned.close()
        } else {
            Issue.record("the honest paths could not be pinned")
        }
        /// The race: after the check, `sub` (kept as `sub`-old) becomes a link to `destination`; pinning the checked
        /// paths again must fail.
        func pinFailure(swapping sub: String, for destination: String, _ what: String) throws -> PinnedPaths.Failure? {
            try FileManager.default.moveItem(atPath: folder.file(sub), toPath: folder.file(sub + "-old"))
            try FileManager.default.createSymbolicLink(
                atPath: folder.file(sub), withDestinationPath: folder.file(destination))
            guard
                case .failure(let error) = PinnedPaths.pin(
                    input: checkedInput, inputRoots: [inputRoot], output: checkedOutput, outputRoot: outputRoot)
            else {
                Issue.record("\(what) reached through a swapped link was opened")
                return nil
            }
            return error
        }
        guard let inputError = try pinFailure(swapping: "media/day1", for: "outside", "an input") else { return }
        #expect(inputError.description.contains("leads outside"), "\(inputError)")
        // The same for the output folder, the input's put back.
        try FileManager.default.removeItem(atPath: folder.file("media/day1"))
        try FileManager.default.moveItem(atPath: folder.file("media/day1-old"), toPath: folder.file("media/day1"))
        guard let outputError = try pinFailure(swapping: "out/day1", for: "elsewhere", "an output folder") else {
            return
        }
        #expect(outputError.description.contains("leads outside"), "\(outputError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("elsewhere")).isEmpty)
    }
}
