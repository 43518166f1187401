import DriftCore
import Yams

extension NodeReader {
    /// `content:`: which measurement plans repairs, and how content repairs are held to account.
    func contentSection(_ node: Node, key: String) throws(ConfigurationError) -> ContentPolicy {
        var policy = ContentPolicy()
        for (k, value) in try mapping(node, key: key) {
            let full = "\(key).\(k.name)"
            switch k.name {
            case "measure":
                policy.mode = try choice(value, key: full, as: ContentPolicy.Mode.self)
            case "confidence-floor":
                let floor = try number(value, key: full).doubleValue
                guard (0...1).contains(floor) else { throw error(value, key: full, "must be from 0 to 1") }
                policy.confidenceFloor = floor
            case "start":
                policy.start = try choice(value, key: full, as: ContentRepairPlan.Start.self)
            case "residual-limit-ms":
                let limit = try number(value, key: full).doubleValue
                guard limit > 0 && limit <= 1000 else {
                    throw error(value, key: full, "must be greater than 0 and at most 1000")
                }
                policy.residualLimitMs = limit
            case "header-precision-ms":
                let precision = try number(value, key: full).doubleValue
                guard precision >= 0 && precision <= 10_000 else {
                    throw error(value, key: full, "must be from 0 to 10000")
                }
                policy.headerPrecisionMs = precision
            default:
                throw unknown(
                    k, in: key,
                    allowed: ["measure", "confidence-floor", "start", "residual-limit-ms", "header-precision-ms"])
            }
        }
        return policy
    }
}
