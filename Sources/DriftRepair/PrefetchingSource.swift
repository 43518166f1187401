import DriftCore
import DriftSupport
import Foundation

/// Reads its upstream (a file) ahead on a thread of its own, so decoding overlaps the conversion that pulls
/// from it. A few blocks are in flight at most; memory stays fixed.
final class PrefetchingSource: AudioSource {
    private enum Item {
        case block(AudioBlock)
        case end
        case failure(any Error)
    }

    let channelCount: Int
    let frameCount: Int64
    private let filled: BlockQueue<Item>
    private let free: BlockQueue<AudioBlock>
    private let finished = DispatchSemaphore(value: 0)
    private var current: AudioBlock?
    private var offset = 0
    private var ended = false

    /// Starts reading `upstream` on a new thread; the upstream must not be used by anyone else from now on.
    init(_ upstream: AudioSource, blockFrames: Int, depth: Int = 3) {
        channelCount = upstream.channelCount
        frameCount = upstream.frameCount
        filled = BlockQueue(capacity: depth + 1)
        free = BlockQueue(capacity: depth)
        for _ in 0..<depth { free.push(AudioBlock(frames: blockFrames, channels: upstream.channelCount)) }
        let job = Handover(value: (upstream, filled, free, finished))
        let thread = Thread {
            let (source, filled, free, finished) = job.value
            defer { finished.signal() }
            do {
                while let block = free.pop() {
                    block.frames = try source.read(into: block.samples, frames: block.capacity)
                    guard block.frames > 0 else {
                        filled.push(.end)
                        return
                    }
                    guard filled.push(.block(block)) else { return }
                }
            } catch {
                filled.push(.failure(error))
            }
        }
        thread.name = "driftfix-read"
        thread.start()
    }

    deinit {
        free.close()
        filled.close()
        finished.wait()
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        var written = 0
        while written < frames && !ended {
            if current == nil {
                switch filled.pop() {
                case .block(let block)?:
                    current = block
                    offset = 0
                case .failure(let error)?:
                    ended = true
                    throw error
                case .end?, nil:
                    ended = true
                    continue
                }
            }
            guard let block = current else { break }
            let count = min(frames - written, block.frames - offset)
            (buffer + written * channelCount).update(
                from: block.samples + offset * channelCount, count: count * channelCount)
            written += count
            offset += count
            if offset == block.frames {
                current = nil
                free.push(block)
            }
        }
        return written
    }
}
