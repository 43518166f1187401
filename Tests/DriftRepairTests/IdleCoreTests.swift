import DriftAudio
import DriftCore
import DriftDSP
import DriftFixtures
import DriftSupport
import Foundation
import Testing

@testable import DriftRepair

/// Slots of a namespace of their own: other tests' jobs hold the host's.
private func privateSlots(cores: Int) -> CoreSlots {
    CoreSlots(cores: cores, namespace: "driftfix-test-\(getpid())-\(UUID().uuidString.prefix(8))")
}

@Suite("Idle cores: a long job borrows what no other job holds", .serialized)
struct IdleCoreTests {
    @Test("cores are held until released; a waiting job stops the lending; nothing is lent beyond the count")
    func accounting() throws {
        let slots = privateSlots(cores: 2)
        let first = try #require(slots.takeForJob())
        #expect(first.isCore)
        let borrowed = try #require(slots.borrowIdle(), "one core is idle")
        #expect(slots.borrowIdle() == nil, "both cores are busy")
        borrowed.release()
        let second = try #require(eventually { slots.takeForJob() }, "the lent core came back")
        let third = try #require(slots.takeForJob())
        #expect(!third.isCore, "a third job waits: it says so")
        first.release()
        #expect(slots.borrowIdle() == nil, "a core is free, but a job waits for it: nothing is lent")
        third.release()
        #expect(eventually { slots.borrowIdle() } != nil, "no job waits: the free core is lent")
        second.release()
    }

    /// A core hold that `take` gives within 5 s, other holds released. A name is free once no descriptor of its
    /// socket is open, and a child another test spawns at that moment holds copies of this process's descriptors
    /// until its exec closes them (SOCK_CLOEXEC): a released name can stay taken for that instant.
    private func eventually(_ take: () -> CoreSlots.Hold?) -> CoreSlots.Hold? {
        var core: CoreSlots.Hold?
        _ = waitUntil(seconds: 5) {
            core = take().flatMap { $0.isCore ? $0 : nil }
            return core != nil
        }
        return core
    }

    @Test("another process's cores count, and are free again the moment it dies (the kernel drops its names)")
    func acrossProcesses() throws {
        let slots = privateSlots(cores: 2)
        // Python binds the two core names as another driftfix process's jobs would.
        let holder = try Child(
            "/usr/bin/python3",
            [
                "-c",
                """
                import socket, sys, time
                held = []
                for k in range(2):
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.bind('\\0' + sys.argv[1] + '-core-' + str(k))
                    held.append(s)
                print('held', flush=True)
                time.sleep(60)
                """, slots.namespace,
            ])
        defer {
            holder.send(SIGKILL)
            _ = holder.wait(seconds: 30)
        }
        try #require(waitUntil(seconds: 30) { holder.outputSoFar.contains("held") }, "the holder bound its names")
        #expect(slots.borrowIdle() == nil)
        let job = try #require(slots.takeForJob())
        #expect(!job.isCore, "every core is busy in the other process")
        job.release()
        holder.send(SIGKILL)
        _ = holder.wait(seconds: 30)
        #expect(slots.borrowIdle()?.isCore == true, "the dead holder's cores are free, with nothing to clean up")
    }

    @Test(
        "a long resample lends its chunks to an idle core, and not to a busy one; the output is the one-pass output either way"
    )
    func lendsOnlyIdleCores() throws {
        let folder = TemporaryFolder()
        let frames: Int64 = 2_600_017
        let signal = TestSignal(channelCount: 2, length: frames, seed: 9, tonesPerChannel: 4)
        let input = try writeRecording(
            signal, to: folder.file("long.wav"),
            format: AudioFormat(container: .wav, encoding: .float32, sampleRate: 48_000, channelCount: 2))
        let target = frames - 341
        func repair(_ name: String, threads: Int, slots: CoreSlots?) throws -> ProcessResult {
            var request = ProcessRequest(
                input: input, output: folder.file(name), target: .frames(target), quality: .medium)
            request.threads = threads
            if let slots { request.borrowCore = { slots.borrowIdle() } }
            return try FileProcessor.run(request)
        }
        let onePass = try repair("one.wav", threads: 1, slots: nil)
        #expect(onePass.split == nil)

        let idle = privateSlots(cores: 2)
        let own = try #require(idle.takeForJob())
        let lent = try repair("idle.wav", threads: 2, slots: idle)
        own.release()
        let idleSplit = try #require(lent.split)
        // How many chunks the helper takes depends on when the scheduler runs it (none, on a loaded machine, if the
        // first converter is through first): that it gets some when it may is `helperTakesChunksOnALentCore`.
        #expect(idleSplit.chunks >= 2, "\(idleSplit)")
        #expect(idle.borrowIdle() != nil, "every lent core was given back")

        let busy = privateSlots(cores: 2)
        let holds = [busy.takeForJob(), busy.takeForJob()]  // this job's core and another job's
        let kept = try withExtendedLifetime(holds) { try repair("busy.wav", threads: 2, slots: busy) }
        #expect(kept.split?.byHelpers == 0, "no core was idle: \(String(describing: kept.split))")

        let one = try readAll(folder.file("one.wav"))
        for name in ["idle.wav", "busy.wav"] {
            let other = try readAll(folder.file(name))
            #expect(other.frames == target)
            let worst = zip(one.samples, other.samples).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 1e-5, "\(name): largest difference from the one-pass output: \(worst)")
        }
    }

    @Test(
        "a helper converts chunks on a lent core, and none when no core is lent: the first converter held back until the helper has asked, so the order is the test's, not the scheduler's"
    )
    func helperTakesChunksOnALentCore() throws {
        let folder = TemporaryFolder()
        let frames: Int64 = 2_600_017
        let input = try writeRecording(
            TestSignal(channelCount: 2, length: frames, seed: 4, tonesPerChannel: 2), to: folder.file("long.wav"),
            format: AudioFormat(container: .wav, encoding: .float32, sampleRate: 48_000, channelCount: 2))
        for lends in [true, false] {
            let gate = Gate()
            let slots = privateSlots(cores: 2)
            let own = try #require(slots.takeForJob())
            let other = lends ? nil : slots.takeForJob()  // another job's core: nothing idle to lend
            let open: SegmentedResampler.Open = { GatedSource(try AudioFileReader(path: input), gate: gate) }
            let admission: SegmentedResampler.Admission = {
                let core = slots.borrowIdle()
                gate.open()
                return core
            }
            let made = SegmentedResampler.make(
                open: open, range: 0..<frames, channelCount: 2, targetFrames: frames - 341, quality: .medium,
                engine: .polyphase, threads: 2, admission: admission)
            let resampler = try #require(made)
            var buffer = [Float](repeating: 0, count: 8192 * 2)
            var total: Int64 = 0
            while true {
                let got = try buffer.withUnsafeMutableBufferPointer {
                    try resampler.read(into: $0.baseAddress!, frames: 8192)
                }
                if got == 0 { break }
                total += Int64(got)
            }
            withExtendedLifetime((own, other)) {}
            #expect(total == frames - 341)
            #expect(gate.opened, "the helper asked for a core")
            if lends {
                #expect(
                    resampler.helperChunks >= 1, "lent a core, the helper converted \(resampler.helperChunks) chunks")
            } else {
                #expect(resampler.helperChunks == 0, "no core lent, yet the helper converted \(resampler.helperChunks)")
            }
        }
    }
}

/// Opens once: the first asking for a core (lent or not) opens it; readers wait for it before their first read.
private final class Gate: @unchecked Sendable {  // guarded by `condition`
    private let condition = NSCondition()
    private var isOpen = false

    var opened: Bool { condition.withLock { isOpen } }

    func open() {
        condition.withLock { isOpen = true }
        condition.broadcast()
    }

    /// Waits until open, at most 60 s (then the test's expectations say what went wrong).
    func wait() {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while !isOpen && condition.wait(until: deadline) {}
    }
}

/// A file whose first read waits at the gate: no converter starts before the helper has asked for a core.
private final class GatedSource: SeekableAudioSource {
    let source: AudioFileReader
    let gate: Gate
    private var waited = false

    init(_ source: AudioFileReader, gate: Gate) {
        self.source = source
        self.gate = gate
    }

    var channelCount: Int { source.channelCount }
    var frameCount: Int64 { source.frameCount }

    func seek(toFrame frame: Int64) throws { try source.seek(toFrame: frame) }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        if !waited {
            gate.wait()
            waited = true
        }
        return try source.read(into: buffer, frames: frames)
    }
}
