import DriftCore
import DriftFixtures
import DriftSupport
import Foundation
import Synchronization
import Testing

@testable import DriftAudio

/// Names in `folder` other than `keep`: temporary files a writer left.
private func leftovers(in folder: String, keep: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0 != keep }
}

@Suite("Publishing: a fenced output is never renamed; two writers of one name leave one whole file")
struct PublishFenceTests {
    @Test("a fence that refuses keeps what is at the destination, removes the verified temporary file and says why")
    func fenced() throws {
        let folder = TemporaryFolder()
        let destination = folder.file("take.wav")
        try "published by the job's newer lease".write(toFile: destination, atomically: true, encoding: .utf8)
        let staged = try StagedOutput(destination: destination)
        try Data("a late copy".utf8).write(to: URL(fileURLWithPath: staged.temporaryPath))
        let why = "the coordinator was not heard for 9 s"
        #expect(throws: AudioError(path: destination, cause: .fenced(why))) {
            try PublishFence.$current.withValue(PublishFence { why }) { try staged.commit() }
        }
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "published by the job's newer lease")
        #expect(leftovers(in: folder.path, keep: "take.wav").isEmpty)

        // The same fence, open: the output is published; outside any fence, too.
        for fence in [PublishFence { nil }, nil] {
            let open = try StagedOutput(destination: destination)
            try Data("current".utf8).write(to: URL(fileURLWithPath: open.temporaryPath))
            try PublishFence.$current.withValue(fence) { try open.commit() }
            #expect(try String(contentsOfFile: destination, encoding: .utf8) == "current")
        }
        #expect(leftovers(in: folder.path, keep: "take.wav").isEmpty)
    }

    @Test(
        "two workers commit the same output name at the same moment, 200 times, into a new name and over an old one: one whole file, never a mix, no temporary file"
    )
    func simultaneousRenames() throws {
        let folder = TemporaryFolder()
        let size = 256 * 1024
        let contents = [Data(repeating: 0xA1, count: size), Data(repeating: 0xB2, count: size + 7)]
        var winners = [0, 0]
        for round in 0..<200 {
            let destination = folder.file("out.wav")
            if round % 2 == 0 { try? FileManager.default.removeItem(atPath: destination) }
            // Both outputs staged, each handed to its thread; both threads wait at the gate, then commit together.
            let ready = DispatchGroup()
            let gate = DispatchSemaphore(value: 0)
            let failures = Mutex<[String]>([])
            let done = DispatchGroup()
            for content in contents {
                let output = try StagedOutput(destination: destination)
                try content.write(to: URL(fileURLWithPath: output.temporaryPath))
                ready.enter()
                done.enter()
                let box = Handover(value: output)
                Thread {
                    ready.leave()
                    gate.wait()
                    do { try box.value.commit() } catch { failures.withLock { $0.append("\(error)") } }
                    done.leave()
                }.start()
            }
            ready.wait()
            gate.signal()
            gate.signal()
            done.wait()
            #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0 })")
            let found = try Data(contentsOf: URL(fileURLWithPath: destination))
            let winner = contents.firstIndex(of: found)
            #expect(winner != nil, "round \(round): the destination holds \(found.count) bytes of neither writer")
            if let winner { winners[winner] += 1 }
            #expect(leftovers(in: folder.path, keep: "out.wav").isEmpty, "round \(round)")
        }
        #expect(winners.reduce(0, +) == 200)
    }
}
