import DriftAudio
import DriftCore
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
        let second = try #require(slots.takeForJob())
        #expect(second.isCore, "the lent core came back")
        let third = try #require(slots.takeForJob())
        #expect(!third.isCore, "a third job waits: it says so")
        first.release()
        #expect(slots.borrowIdle() == nil, "a core is free, but a job waits for it: nothing is lent")
        third.release()
        #expect(slots.borrowIdle() != nil, "no job waits: the free core is lent")
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
        #expect(idleSplit.chunks >= 2 && idleSplit.byHelpers >= 1, "\(idleSplit)")
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
}
