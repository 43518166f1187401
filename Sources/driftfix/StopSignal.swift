import Dispatch
import DriftAudio
import Foundation

/// Turns SIGINT, SIGTERM and SIGHUP into a flag the socket loops poll, for a graceful stop: no new work, running
/// jobs finish (bounded), the report is written. A second signal exits at once, after deleting this process's
/// temporary output files. Every other terminating signal (and a crash) deletes them too before the process dies.
final class StopSignal: @unchecked Sendable {  // `requested` is guarded by `lock`
    private let lock = NSLock()
    private var count = 0
    private var sources: [DispatchSourceSignal] = []

    init() {
        StagedOutput.removeOnSignals(terminating: false)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func received(_ number: Int32) {
        let seen = lock.withLock {
            count += 1
            return count
        }
        if seen > 1 {
            StagedOutput.removeAllPending()
            exit(128 + number)
        }
        let what = number == SIGINT ? "interrupted" : number == SIGHUP ? "hung up" : "terminated"
        FileHandle.standardError.write(Data("\ndriftfix: \(what); finishing running jobs (signal again to quit now)\n".utf8))
    }

    var requested: Bool { lock.withLock { count > 0 } }
}
