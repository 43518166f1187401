/// A ZeroMQ call that failed: the operation, libzmq's errno and its text.
public struct TransportError: Error, Equatable, CustomStringConvertible {
    public let operation: String
    public let code: Int32
    public let text: String

    public var description: String { "\(operation): \(text) (errno \(code))" }
}
