import DriftSchema

/// The per-device Prometheus series — their names, help texts, labels and values — as the end-of-run text file
/// (`RunMetrics`) and the live endpoint (`LiveRunMetrics`) both serve them: one definition, the same names in both.
public struct DeviceSeries: Sendable {
    /// One sample: its labels (name, value) and its value.
    public struct Sample: Sendable {
        public var labels: [(String, String)]
        public var value: Double
    }

    /// A metric family: every sample of one name (all gauges).
    public struct Family: Sendable {
        public let name: String
        public let help: String
        public var samples: [Sample]
    }

    /// The families for `devices` (worst first), at most `limit` of them with series of their own (label
    /// cardinality); the rest are counted in `driftfix_device_series_omitted`.
    public static func families(_ devices: [DeviceSummary], limit: Int) -> [Family] {
        let shown = devices.prefix(max(0, limit))
        func device(_ summary: DeviceSummary, _ more: [(String, String)] = []) -> [(String, String)] {
            [("device", summary.device)] + more
        }
        return [
            Family(
                name: "driftfix_devices", help: "Devices (recorders) in the last run.",
                samples: [Sample(labels: [], value: Double(devices.count))]),
            Family(
                name: "driftfix_devices_alerting",
                help: "Devices alerting in the last run (drift moved, or turned erratic).",
                samples: [Sample(labels: [], value: Double(devices.filter { $0.alert != nil }.count))]),
            Family(
                name: "driftfix_device_series_omitted",
                help: "Devices left without series of their own (metrics.device-limit).",
                samples: [Sample(labels: [], value: Double(devices.count - shown.count))]),
            Family(
                name: "driftfix_device_drift_ppm",
                help: "A device's drift in the last run: the median and the worst of its recordings (ppm).",
                samples: shown.flatMap { summary -> [Sample] in
                    guard let median = summary.medianPPM, let worst = summary.worstPPM else { return [] }
                    return [
                        Sample(labels: device(summary, [("stat", "median")]), value: median),
                        Sample(labels: device(summary, [("stat", "worst")]), value: worst),
                    ]
                }),
            Family(
                name: "driftfix_device_spread_ppm",
                help: "The spread between a device's recordings in the last run (interquartile range, ppm).",
                samples: shown.compactMap { summary in
                    summary.spreadPPM.map { Sample(labels: device(summary), value: $0) }
                }),
            Family(
                name: "driftfix_device_alert",
                help: "1 if the device alerts (its drift moved from its own past, or it turned erratic), else 0.",
                samples: shown.map { Sample(labels: device($0), value: $0.alert == nil ? 0 : 1) }),
        ]
    }
}
