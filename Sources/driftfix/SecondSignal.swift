import Dispatch
import DriftKit
import Foundation
import Synchronization

/// The command line's side of the graceful stop that the service group runs on SIGINT, SIGTERM and SIGHUP: it says
/// what happens at the first signal, and makes a second one quit at once (after deleting this process's temporary
/// output files). Every other terminating signal, and a crash, deletes them too before the process dies.
final class SecondSignal: Sendable {
    private let count = Mutex(0)
    /// Kept alive for the process's life; used only here.
    private let sources: Mutex<[(Int32, DispatchSourceSignal)]>

    init() {
        PendingOutputs.removeOnSignals(terminating: false)
        sources = Mutex(
            [SIGINT, SIGTERM, SIGHUP].map { number in
                signal(number, SIG_IGN)
                return (number, DispatchSource.makeSignalSource(signal: number, queue: .global()))
            })
        sources.withLock { sources in
            for (number, source) in sources {
                source.setEventHandler { [weak self] in self?.received(number) }
                source.resume()
            }
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
