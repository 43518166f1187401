import ArgumentParser
import DriftTransport
import Foundation

/// The command-line side of CURVE: which endpoints need it, and loading keys with one clear line on failure.
enum TransportSecurity {
    /// The flag that accepts plaintext on a network endpoint; named so nobody passes it by accident.
    static let insecureFlag = "--insecure-plaintext"

    static func requireCurve(_ endpoint: String, hasKeys: Bool, insecure: Bool, role: String) throws {
        guard !Endpoint.isLocal(endpoint), !hasKeys, !insecure else { return }
        throw ValidationError("""
            \(role) \(endpoint) is reachable from the network, so it must be authenticated: give --curve-secret \
            and \(role == "--bind" ? "--allow" : "--server-key") (make keys with driftfix keygen), or pass \(insecureFlag) \
            to accept unauthenticated, unencrypted traffic
            """)
    }

    static func secret(_ path: String) throws -> CurveKeyPair {
        do {
            return try CurveKeyFile.loadSecret(RepairCommand.absolute(path))
        } catch {
            throw failure(error)
        }
    }

    static func publicKey(_ path: String) throws -> String {
        do {
            return try CurveKeyFile.loadPublic(RepairCommand.absolute(path))
        } catch {
            throw failure(error)
        }
    }
}
