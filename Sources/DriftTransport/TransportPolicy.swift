import struct SystemPackage.FilePath

/// How one endpoint is protected: the rule every coordinator and worker follows, whoever builds it (the command line,
/// a test, the bench, another front end). It is made only by its throwing constructors, so an endpoint another
/// machine can reach is never used without CURVE unless plaintext was asked for in so many words.
public struct TransportPolicy: Sendable, Equatable {
    public enum Protection: Sendable, Equatable {
        /// Only this machine can reach the endpoint (ipc://, inproc://, loopback TCP): no keys.
        case localOnly
        /// CURVE on a bound endpoint: the coordinator's key pair, its key file and the allowlist (a file of keys or a
        /// folder of `*.pub` files).
        case curveServer(CurveKeyPair, secretKeyFile: String, allowlist: String)
        /// CURVE towards a coordinator: this side's key pair and key file, the coordinator's public key and its file.
        case curveClient(CurveKeyPair, secretKeyFile: String, serverKey: String, serverKeyFile: String)
        /// A network endpoint without authentication or encryption, acknowledged by whoever asked for it.
        case insecurePlaintext
    }

    /// Which side of the connection the policy is for.
    public enum Role: String, Sendable {
        case bind, connect
    }

    public let endpoint: String
    public let role: Role
    public let protection: Protection

    /// A coordinator binding `endpoint`: CURVE with `curve` (its secret key file and allowlist, read and checked
    /// here), or none on an endpoint only this machine reaches, or none on the network with `acknowledgingPlaintext`.
    public init(
        binding endpoint: String, curve: (secretKeyFile: String, allowlist: String)? = nil,
        acknowledgingPlaintext: Bool = false
    ) throws(TransportPolicyError) {
        guard Endpoint.scheme(of: endpoint) != nil else { throw .unsupportedEndpoint(endpoint) }
        self.endpoint = endpoint
        role = .bind
        if let curve {
            let pair: CurveKeyPair
            do {
                pair = try CurveKeyFile.loadSecret(FilePath(pathText: curve.secretKeyFile))
            } catch {
                throw .keyFile(error)
            }
            protection = .curveServer(pair, secretKeyFile: curve.secretKeyFile, allowlist: curve.allowlist)
        } else {
            protection = try Self.unprotected(endpoint, role: .bind, acknowledged: acknowledgingPlaintext)
        }
    }

    /// A worker connecting to `endpoint`: CURVE with `curve` (its secret key file and the coordinator's public key
    /// file, read and checked here), or as `init(binding:)` says without keys.
    public init(
        connecting endpoint: String, curve: (secretKeyFile: String, serverKeyFile: String)? = nil,
        acknowledgingPlaintext: Bool = false
    ) throws(TransportPolicyError) {
        guard Endpoint.scheme(of: endpoint) != nil else { throw .unsupportedEndpoint(endpoint) }
        self.endpoint = endpoint
        role = .connect
        if let curve {
            do {
                let pair = try CurveKeyFile.loadSecret(FilePath(pathText: curve.secretKeyFile))
                let server = try CurveKeyFile.loadPublic(FilePath(pathText: curve.serverKeyFile))
                protection = .curveClient(
                    pair, secretKeyFile: curve.secretKeyFile, serverKey: server, serverKeyFile: curve.serverKeyFile)
            } catch {
                throw .keyFile(error)
            }
        } else {
            protection = try Self.unprotected(endpoint, role: .connect, acknowledged: acknowledgingPlaintext)
        }
    }

    private static func unprotected(_ endpoint: String, role: Role, acknowledged: Bool) throws(TransportPolicyError)
        -> Protection
    {
        guard Endpoint.isNetwork(endpoint) else { return .localOnly }
        guard acknowledged else { throw .networkWithoutCurve(endpoint, role) }
        return .insecurePlaintext
    }

    /// Whether another machine may reach the endpoint.
    public var isNetwork: Bool { Endpoint.isNetwork(endpoint) }

    /// What the socket is set up with.
    public var socketSecurity: SocketSecurity {
        switch protection {
        case .localOnly, .insecurePlaintext: return .none
        case .curveServer(let pair, _, _): return .curveServer(pair)
        case .curveClient(let pair, _, let server, _): return .curveClient(pair, serverKey: server)
        }
    }
}

/// Why an endpoint cannot be used as asked, in the transport's terms (the command line names its own options).
public enum TransportPolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The endpoint is reachable from the network and neither CURVE nor plaintext was asked for.
    case networkWithoutCurve(String, TransportPolicy.Role)
    /// Not tcp://, ipc:// or inproc://.
    case unsupportedEndpoint(String)
    /// A key file that cannot be used.
    case keyFile(KeyFileError)

    public var description: String {
        switch self {
        case .networkWithoutCurve(let endpoint, let role):
            return
                "\(endpoint) is reachable from the network: to \(role.rawValue) it, give CURVE keys or acknowledge plaintext (anybody who reaches it could take jobs and send results)"
        case .unsupportedEndpoint(let endpoint):
            return "\(endpoint): not an endpoint driftfix speaks (tcp://HOST:PORT, ipc://PATH or inproc://NAME)"
        case .keyFile(let error): return "\(error)"
        }
    }
}
