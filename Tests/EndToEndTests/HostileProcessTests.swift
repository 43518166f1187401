import DriftAudio
import DriftCore
import DriftFixtures
import Foundation
import Testing

private func recording(
    _ folder: TemporaryFolder, _ name: String = "take.wav", frames: Int64 = 48_000,
    channels: Int = 2, encoding: SampleEncoding = .pcm24
) throws -> String {
    let format = AudioFormat(container: .wav, encoding: encoding, sampleRate: 48_000, channelCount: channels)
    return try writeRecording(TestSignal(channelCount: channels, length: frames), to: folder.file(name), format: format)
}

/// Runs `arguments` under a pseudo-terminal (util-linux `script`), so standard error is a terminal; returns what the
/// terminal showed.
private func onTerminal(_ arguments: [String], environment: [String: String]) throws -> String {
    let command = ([driftfixPath()] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let child = try Child(
        "/usr/bin/script", ["-qefc", command.joined(separator: " "), "/dev/null"],
        environment: environment, removing: ["NO_COLOR"], stderr: .discard)
    return child.wait(seconds: 300).stdout
}

@Suite("driftfix process: hostile destinations, signals and odd values (the built binary)")
struct HostileProcessTests {
    @Test(
        "OUT that is a FIFO, a socket-like link, a link to a file or to /dev/stdout, or a device: refused, left as it was",
        arguments: [false, true])
    func specialOutputs(overwrite: Bool) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let before = fingerprint(input)
        try #require(mkfifo(folder.file("fifo.wav"), 0o644) == 0)
        try "keep me".write(toFile: folder.file("other.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("link.wav"), withDestinationPath: folder.file("other.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("stdout.wav"), withDestinationPath: "/dev/stdout")
        var cases = [
            ("fifo.wav", "a FIFO (named pipe)"), ("link.wav", "a symbolic link"), ("stdout.wav", "a symbolic link"),
        ]
        if getuid() == 0 {
            // A node with /dev/null's numbers, made in the test's own folder.
            try #require(mknod(folder.file("null.wav"), S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0)
            cases.append(("null.wav", "a character device"))
        }
        let entries = folder.entries()
        for (name, kind) in cases {
            let result = try driftfix(
                ["process", input, folder.file(name), "--ratio", "1.001"] + (overwrite ? ["-y"] : []))
            #expect(result.status == 1, "\(name): \(result.stderr)")
            #expect(
                result.errorLines == [
                    "driftfix: \(folder.file(name)): is \(kind), not a regular file: driftfix only ever replaces regular files"
                ],
                "\(result.stderr)")
        }
        #expect(folder.entries() == entries, "nothing created, nothing replaced")
        var info = stat()
        #expect(lstat(folder.file("fifo.wav"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        if getuid() == 0 { #expect(lstat(folder.file("null.wav"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR) }
        #expect(try String(contentsOfFile: folder.file("other.txt"), encoding: .utf8) == "keep me")
        #expect(fingerprint(input) == before)
    }

    @Test("an existing OUT is refused unless -y/--overwrite; OUT '-' is refused; ./- is a file")
    func existingOutput() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        try "old".write(toFile: folder.file("out.wav"), atomically: true, encoding: .utf8)
        let refused = try driftfix(["process", input, folder.file("out.wav"), "--ratio", "1.001"])
        #expect(refused.status == 1)
        #expect(
            refused.errorLines == [
                "driftfix: \(folder.file("out.wav")): already exists; give -y (--overwrite) to replace it"
            ])
        #expect(try String(contentsOfFile: folder.file("out.wav"), encoding: .utf8) == "old")
        for flag in ["-y", "--overwrite"] {
            let replaced = try driftfix(["process", input, folder.file("out.wav"), "--ratio", "1.001", flag])
            #expect(replaced.status == 0, "\(replaced.stderr)")
            #expect(try AudioFileReader(path: folder.file("out.wav")).frameCount == 48_048)
        }
        let dash = try driftfix(["process", input, "-", "--ratio", "1.001"])
        #expect(dash.status == 2 && dash.stderr.contains("OUT '-': standard output is not supported"), "\(dash.stderr)")
        let dashIn = try driftfix(["process", "-", folder.file("x.wav"), "--ratio", "1.001"])
        #expect(dashIn.status == 2 && dashIn.stderr.contains("IN '-': standard input is not supported"))
        #expect(try driftfix(["process", input, folder.file("-"), "--ratio", "1.001"]).status == 0)
        #expect(folder.entries() == ["-", "out.wav", "take.wav"])
    }

    @Test(
        "a catchable signal mid-write removes the temporary file; the process dies of that signal",
        arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGPIPE])
    func signals(signal: Int32) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder, frames: 48_000 * 120)
        let before = fingerprint(input)
        let temporary = { folder.entries().contains { $0.hasPrefix(".out.wav.driftfix-") } }
        // Mid-write for certain: the process is stopped while its temporary file is there, signalled, then let go
        // (the pending signal comes before it runs on). A run that ended before it was stopped (a loaded machine can
        // starve this thread past the whole write) proves nothing, and is run again.
        var signalled: CommandResult?
        for _ in 0..<3 where signalled == nil {
            let process = try Child(
                driftfixPath(),
                [
                    "process", input, folder.file("out.wav"), "--ratio", "1.000131",
                    "--quality", "best", "--block-frames", "256",
                ], stdout: .discard, stderr: .discard)
            let writing = waitUntil(seconds: 60, temporary)
            kill(process.pid, SIGSTOP)
            guard writing, temporary(), !folder.entries().contains("out.wav") else {
                kill(process.pid, SIGCONT)
                _ = process.wait(seconds: 120)
                unlink(folder.file("out.wav"))
                continue
            }
            kill(process.pid, signal)
            kill(process.pid, SIGCONT)
            signalled = process.wait(seconds: 120)
        }
        let ended = try #require(signalled, "the process was stopped while it wrote its temporary file")
        if signal == SIGQUIT {
            // The Swift runtime's backtracer answers SIGQUIT with a crash report and exit status 1.
            #expect(ended.status != 0)
        } else {
            #expect(ended.signaled && ended.status == signal, "died of signal \(ended.status)")
        }
        #expect(folder.entries() == ["take.wav"], "no temporary file, no output: \(folder.entries())")
        #expect(fingerprint(input) == before)
    }

    @Test("a FIFO as input is named as such, without waiting on it")
    func fifoInput() throws {
        let folder = TemporaryFolder()
        try #require(mkfifo(folder.file("in.wav"), 0o644) == 0)
        let started = Date()
        let result = try driftfix(["process", folder.file("in.wav"), folder.file("out.wav"), "--ratio", "1.001"])
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(result.status == 1)
        #expect(result.errorLines == ["driftfix: \(folder.file("in.wav")): not a regular file but a FIFO (named pipe)"])
    }

    @Test(
        "negative values reach validation and say what is wrong",
        arguments: [
            (["--ratio", "-1"], "--ratio must be greater than 0, got -1"),
            (["--to-seconds", "-5"], "--to-seconds must be greater than 0, got -5"),
            (["--to-frames", "-5"], "--to-frames must be at least 1, got -5"),
            (["--rate", "-48000"], "--rate must be greater than 0, got -48000"),
            (["--fade-in", "-1"], "--fade-in must not be negative, got -1"),
            (["--fade-out", "-0.5"], "--fade-out must not be negative, got -0.5"),
            (["--tempo", "-2"], "--tempo must be greater than 0, got -2"),
        ])
    func negativeValues(arguments: [String], message: String) throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let result = try driftfix(["process", input, folder.file("out.wav")] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message) && !result.stderr.contains("Missing value"), "\(result.stderr)")
    }

    @Test("a length no repair can make names the file, the request, and the shortest and longest possible")
    func lengthOutOfRange() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder)
        let long = try driftfix(["process", input, folder.file("out.wav"), "--to-seconds", "1e12"])
        #expect(long.status == 1)
        #expect(
            long.errorLines == [
                "driftfix: \(input): the requested length, 1000000000000 s = 48000000000000000 frames (1e+12 s), is beyond resampling, which makes 1/256 to 256 times the input of 48000 frames (1 s): the shortest possible is 188 frames (0.00391667 s), the longest 12288000 frames (256 s)"
            ],
            "\(long.stderr)")
        let short = try driftfix(["process", input, folder.file("out.wav"), "--to-frames", "1"])
        #expect(
            short.status == 1 && short.stderr.contains("the requested length, 1 frame (")
                && short.stderr.contains("shortest possible is 188 frames"))
        #expect(folder.entries() == ["take.wav"])
    }

    @Test(
        "help texts have no stray backslashes",
        arguments: ["scan", "repair", "worker", "history", "keygen", "process", "verify"])
    func help(command: String) throws {
        let help = try driftfix([command, "--help"]).stdout
        #expect(!help.split(separator: "\n").contains { $0.hasSuffix("\\") }, "\(help)")
        #expect(!help.contains("\\ "), "\(help)")
    }

    @Test(
        "the progress bar: redrawn on a capable terminal, plain under NO_COLOR, absent on TERM=dumb",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressOnTerminals() throws {
        let folder = TemporaryFolder()
        let input = try recording(folder, frames: 48_000 * 4)
        func run(_ environment: [String: String], _ name: String) throws -> String {
            try onTerminal(
                ["process", input, folder.file(name), "--ratio", "1.001", "--quality", "best"], environment: environment
            )
        }
        // A terminal turns "\n" into "\r\n" on its own; only a carriage return before anything else is a redraw.
        func redraws(_ text: String) -> Bool { text.replacingOccurrences(of: "\r\n", with: "\n").contains("\r") }
        let ansi = try run(["TERM": "xterm"], "a.wav")
        #expect(
            redraws(ansi) && ansi.contains("\u{1B}[K"),
            "the capable case draws (so the others can fail): \(ansi.debugDescription)")
        let plain = try run(["TERM": "xterm", "NO_COLOR": "1"], "b.wav")
        #expect(redraws(plain) && !plain.contains("\u{1B}"), "\(plain.debugDescription)")
        for environment in [["TERM": "dumb"], ["TERM": ""], ["TERM": "dumb", "NO_COLOR": "1"]] {
            let dumb = try run(environment, "c\(environment.count)-\(environment["TERM"] ?? "").wav")
            #expect(!redraws(dumb) && !dumb.contains("\u{1B}"), "\(environment): \(dumb.debugDescription)")
            #expect(dumb.contains("verified"), "\(dumb)")
        }
    }
}
