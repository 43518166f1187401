import Dispatch
import DriftAudio
import Foundation
import Synchronization

/// The command line's side of the graceful stop that the service group runs on SIGINT, SIGTERM and SIGHUP: it says
/// what happens at the first signal, and makes a second one quit at once (after deleting this process's temporary
/// output files). Every other terminating signal, and a crash, deletes them too before the process dies.
final class SecondSignal: @unchecked Sendable {  // `sources` is set once in init; `count` is a Mutex
    private let count = Mutex(0)
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
        let seen = count.withLock { value -> Int in
            value += 1
            return value
        }
        if seen > 1 {
            StagedOutput.removeAllPending()
            exit(128 + number)
        }
        let what = number == SIGINT ? "interrupted" : number == SIGHUP ? "hung up" : "terminated"
        FileHandle.standardError.write(
            Data("\ndriftfix: \(what); finishing running jobs (signal again to quit now)\n".utf8))
    }
}
