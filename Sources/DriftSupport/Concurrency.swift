/// Moves a non-Sendable value to the thread that owns it from then on (a file reader to its read-ahead thread, a
/// job to its worker thread), or lends it to a thread the sender joins before touching it again (a writer to its
/// writing thread). The compiler cannot see a join, and `sending` cannot say a loan: hence unchecked.
public struct Handover<Value>: @unchecked Sendable {  // the sender never touches the value while the receiver runs
    public let value: Value
    public init(value: Value) { self.value = value }
}

extension Duration {
    /// The duration in seconds as a Double, for reporting and for the dispatcher's clock.
    package var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
