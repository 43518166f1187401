// Live metrics (a `/metrics` and `/healthz` listener for a run or a worker) come with DriftKit's `LiveMetrics` trait,
// on by default. A caller that turns it off builds neither swift-nio nor swift-prometheus; its runs and workers are
// the same, except that a metrics address is refused before anything starts. The end-of-run text file (RunMetrics,
// for node_exporter) is a report and is always there.
#if !LiveMetrics
    import DriftCoordinator
    import DriftCore
    import DriftJobs
    import DriftSchema

    /// No series in this build: a run with a metrics address is refused before it starts, so none is ever made and
    /// these are never called.
    enum LiveRunMetrics: Sendable {
        func planned(_ jobs: [JobRecord], round: String? = nil) {}
        func event(_ event: DispatchEvent) {}
        func devices(_ summaries: [DeviceSummary], limit: Int) {}
    }

    extension MetricsError {
        /// Why this build cannot serve live metrics at `address`.
        static func notBuilt(_ address: MetricsAddress) -> MetricsError {
            .cannotListen(
                address: address.description,
                reason: "this build of DriftKit has no live metrics (its LiveMetrics trait is off)")
        }
    }
#endif
