import ArgumentParser
import DriftConfig
import DriftTransport
import Foundation

/// The command-line side of CURVE: which endpoints need it, and loading keys with one clear line on failure.
enum TransportSecurity {
    /// The flag that accepts plaintext on a network endpoint; named so nobody passes it by accident.
    static let insecureFlag = "--insecure-plaintext"

    static func requireCurve(_ endpoint: String, hasKeys: Bool, insecure: Bool, role: String) throws {
        guard !Endpoint.isLocal(endpoint), !hasKeys, !insecure else { return }
        throw ValidationError(
            """
            \(role) \(endpoint) is reachable from the network, so it must be authenticated: give --curve-secret \
            and \(role == "--bind" ? "--allow" : "--server-key") (make keys with driftfix keygen), or pass \(insecureFlag) \
            to accept unauthenticated, unencrypted traffic
            """)
    }

    /// The coordinator's key files: the options, else (on a TCP endpoint) the config's; nil for no CURVE.
    static func coordinatorKeys(
        bind: String?, secret: String?, allow: String?, configuration: SecuritySettings,
        insecure: Bool
    ) throws -> (secret: String, allow: String)? {
        let tcp = bind?.hasPrefix("tcp://") ?? false
        let secret = secret ?? (tcp ? configuration.secretKey : nil)
        let allow = allow ?? (tcp ? configuration.allow : nil)
        if (secret == nil) != (allow == nil) {
            throw ValidationError(
                "a CURVE coordinator needs a secret key and an allowlist together (--curve-secret and --allow, or security.secret-key and security.allow)"
            )
        }
        if secret != nil && bind == nil {
            throw ValidationError("--curve-secret needs --bind (ipc:// stays on this machine)")
        }
        if let bind { try requireCurve(bind, hasKeys: secret != nil, insecure: insecure, role: "--bind") }
        guard let secret, let allow else { return nil }
        return (secret, allow)
    }

    /// A worker's key files: the options, else (on a TCP endpoint) the config's; nil for no CURVE. (Local workers
    /// of a coordinator share its config file but connect over ipc://, where the config's keys do not apply.)
    static func workerKeys(
        connect: String, secret: String?, serverKey: String?, configuration: SecuritySettings,
        insecure: Bool
    ) throws -> (secret: String, serverKey: String)? {
        let tcp = connect.hasPrefix("tcp://")
        let secret = secret ?? (tcp ? configuration.secretKey : nil)
        let serverKey = serverKey ?? (tcp ? configuration.serverKey : nil)
        if (secret == nil) != (serverKey == nil) {
            throw ValidationError(
                "a CURVE worker needs its secret key and the coordinator's public key together (--curve-secret and --server-key, or security.secret-key and security.server-key)"
            )
        }
        try requireCurve(connect, hasKeys: secret != nil, insecure: insecure, role: "--connect")
        guard let secret, let serverKey else { return nil }
        return (secret, serverKey)
    }

    static func secret(_ path: String) throws -> CurveKeyPair {
        do {
            return try CurveKeyFile.loadSecret(Paths.absolute(path))
        } catch {
            throw failure(error)
        }
    }

    static func publicKey(_ path: String) throws -> String {
        do {
            return try CurveKeyFile.loadPublic(Paths.absolute(path))
        } catch {
            throw failure(error)
        }
    }
}
