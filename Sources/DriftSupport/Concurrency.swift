/// Moves a non-Sendable value to the thread that owns it from then on (a file reader to its read-ahead thread, a
/// job to its worker thread).
public struct Handover<Value>: @unchecked Sendable {  // the sender never touches the value again
    public let value: Value
    public init(value: Value) { self.value = value }
}

extension Duration {
    /// The duration in seconds as a Double, for reporting and for the dispatcher's clock.
    public var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
