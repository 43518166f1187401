/// What must still hold at the moment a verified output is renamed into place. A worker sets one for each job's
/// thread: a worker cut off from its coordinator for longer than a lease survives without word may no longer hold
/// the job (another worker may be writing, or have written, the same name), so its output is discarded instead of
/// renamed over what the newer lease's holder published.
public struct PublishFence: Sendable {
    /// Why the output must not be published now; nil while it may be.
    public let refusal: @Sendable () -> String?

    public init(_ refusal: @escaping @Sendable () -> String?) {
        self.refusal = refusal
    }

    /// The fence of the work running on this thread (task-local storage also serves plain threads).
    @TaskLocal public static var current: PublishFence?
}
