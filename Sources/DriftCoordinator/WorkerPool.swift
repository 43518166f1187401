import ServiceLifecycle

/// Workers a coordinator starts itself and keeps alive for a run: local processes, or tasks of a cluster's
/// scheduler. As a service it starts them, replaces those that die while work remains, posts their deaths to the
/// coordinator's inbox (their leases are requeued at once) and, on graceful shutdown, sees that none is left.
public protocol WorkerPool: Service, Sendable {
    /// The coordinator heard from `identity`: it connected (a crash loop is workers that never do).
    func joined(_ identity: String)
    /// The coordinator gave up on `identity` because it stopped answering: hung rather than dead, it is ended.
    func silent(_ identity: String)
    /// Workers started to replace ones that died, so far.
    var restarts: Int { get }
}
