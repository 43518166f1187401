import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into a flag the socket loops poll, for a graceful stop: no new work, running jobs
/// finish (bounded), the report is written. A second signal exits at once.
final class StopSignal: @unchecked Sendable {  // `requested` is guarded by `lock`
    private let lock = NSLock()
    private var count = 0
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
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
        if seen > 1 { exit(130) }
        FileHandle.standardError.write(Data("\ndriftfix: \(number == SIGINT ? "interrupted" : "terminated"); finishing running jobs (signal again to quit now)\n".utf8))
    }

    var requested: Bool { lock.withLock { count > 0 } }
}
