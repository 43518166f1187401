import Logging
import ServiceLifecycle
import UnixSignals

extension ServiceGroup {
    /// A process's group: `service`, whose end or failure ends the process gracefully, after the `helpers` that serve
    /// it (a metrics listener, the worker pool), so it stops first. The signals shut the group down, giving work in
    /// flight `drain` to finish; its log lines name their service under `service`, a coordinator's and a worker's alike.
    static func process(
        _ service: some Service, named name: String, helpers: [ServiceGroupConfiguration.ServiceConfiguration],
        signals: [UnixSignal], drain: Duration, logger: Logger
    ) -> ServiceGroup {
        let main = ServiceGroupConfiguration.ServiceConfiguration(
            service: service, successTerminationBehavior: .gracefullyShutdownGroup,
            failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: name)
        var configuration = ServiceGroupConfiguration(
            services: helpers + [main], gracefulShutdownSignals: signals, logger: logger)
        configuration.logging.keys.serviceKey = "service"
        configuration.maximumGracefulShutdownDuration = drain
        return ServiceGroup(configuration: configuration)
    }
}
