/// A repair started in a task of its own (`RecordingRepair.start()`): its progress as an `AsyncSequence`, and its
/// result.
///
/// ```swift
/// let task = repair.start()
/// for await step in task.progress { print(step.fraction) }
/// let summary = try await task.result()
/// ```
public final class RepairTask: Sendable {
    /// How far the repair has come, after each block; ends when the repair ends (the newest step kept while
    /// nobody reads).
    public let progress: AsyncStream<RepairProgress>
    private let task: Task<Result<RepairSummary, RecordingError>, Never>

    init(_ repair: RecordingRepair) {
        let (progress, continuation) = AsyncStream.makeStream(
            of: RepairProgress.self, bufferingPolicy: .bufferingNewest(1))
        self.progress = progress
        task = Task {
            defer { continuation.finish() }
            do throws(RecordingError) {
                return .success(try await repair.run { continuation.yield($0) })
            } catch {
                return .failure(error)
            }
        }
    }

    /// The repair's summary once it ended, or why it failed.
    public func result() async throws(RecordingError) -> RepairSummary {
        try await task.value.get()
    }

    /// Stops the repair at its next block: nothing is placed, and `result()` throws `.cancelled`.
    public func cancel() { task.cancel() }
}
