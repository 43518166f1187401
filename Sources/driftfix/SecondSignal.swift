import Dispatch
import DriftKit
import Foundation
import Synchronization

/// The command line's side of the graceful stop that the service group runs on SIGINT, SIGTERM and SIGHUP: it says
/// what happens at the first signal, and makes a second one quit at once (after deleting this process's temporary
/// output files). Every other terminating signal, and a crash, deletes them too before the process dies.
final class SecondSignal: @unchecked Sendable {  // `sources` (not Sendable) is only kept alive, never used after init
    private let count = Mutex(0)
    private let sources: [DispatchSourceSignal]

    init() {
        PendingOutputs.removeOnSignals(terminating: false)
        let numbers = [SIGINT, SIGTERM, SIGHUP]
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        for (number, source) in zip(numbers, sources) {
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
        }
    }

    private func received(_ number: Int32) {
        let seen = count.withLock { value -> Int in
            value += 1
            return value
        }
        if seen > 1 {
            PendingOutputs.removeAll()
            exit(128 + number)
        }
        let what = number == SIGINT ? "interrupted" : number == SIGHUP ? "hung up" : "terminated"
        FileHandle.standardError.write(
            Data("\ndriftfix: \(what); finishing running jobs (signal again to quit now)\n".utf8))
    }
}
