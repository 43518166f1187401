import ArgumentParser
import DriftKit
import Foundation

/// The command line's side of the transport policy (the library's `TransportPolicy` holds the rule): which key
/// files the options and the configuration name, and the policy's refusals worded with the options that mend them.
enum TransportSecurity {
    /// The flag that accepts plaintext on a network endpoint; named so nobody passes it by accident.
    static let insecureFlag = "--insecure-plaintext"

    /// The coordinator's policy for `bind` (nil: a private ipc:// socket): the options' key files, else (on a TCP
    /// endpoint) the configuration's.
    static func coordinator(
        bind: String?, secret: String?, allow: String?, configuration: SecuritySettings, insecure: Bool
    ) throws -> TransportPolicy? {
        let tcp = bind.map { Endpoint.scheme(of: $0) == .tcp } ?? false
        let secret = secret ?? (tcp ? configuration.secretKey?.pathText : nil)
        let allow = allow ?? (tcp ? configuration.allow?.pathText : nil)
        if (secret == nil) != (allow == nil) {
            throw ValidationError(
                "a CURVE coordinator needs a secret key and an allowlist together (--curve-secret and --allow, or security.secret-key and security.allow)"
            )
        }
        guard let bind else {
            if secret != nil { throw ValidationError("--curve-secret needs --bind (ipc:// stays on this machine)") }
            return nil
        }
        let curve = secret.flatMap { secret in allow.map { (Paths.absolute(secret), Paths.absolute($0)) } }
        do {
            return try TransportPolicy(binding: bind, curve: curve, acknowledgingPlaintext: insecure)
        } catch {
            throw worded(error)
        }
    }

    /// A worker's policy for `connect`: the options' key files, else (on a TCP endpoint) the configuration's.
    /// (Local workers of a coordinator share its config file but connect over ipc://, where its keys do not apply.)
    static func worker(
        connect: String, secret: String?, serverKey: String?, configuration: SecuritySettings, insecure: Bool
    ) throws -> TransportPolicy {
        let tcp = Endpoint.scheme(of: connect) == .tcp
        let secret = secret ?? (tcp ? configuration.secretKey?.pathText : nil)
        let serverKey = serverKey ?? (tcp ? configuration.serverKey?.pathText : nil)
        if (secret == nil) != (serverKey == nil) {
            throw ValidationError(
                "a CURVE worker needs its secret key and the coordinator's public key together (--curve-secret and --server-key, or security.secret-key and security.server-key)"
            )
        }
        let curve = secret.flatMap { secret in serverKey.map { (Paths.absolute(secret), Paths.absolute($0)) } }
        do {
            return try TransportPolicy(connecting: connect, curve: curve, acknowledgingPlaintext: insecure)
        } catch {
            throw worded(error)
        }
    }

    /// The policy's refusal in the options' words.
    static func worded(_ error: TransportPolicyError) -> Error {
        switch error {
        case .networkWithoutCurve(let endpoint, let role):
            let option = role == .bind ? "--bind" : "--connect"
            return ValidationError(
                """
                \(option) \(endpoint) is reachable from the network, so it must be authenticated: give --curve-secret \
                and \(role == .bind ? "--allow" : "--server-key") (make keys with driftfix keygen), or pass \(insecureFlag) \
                to accept unauthenticated, unencrypted traffic
                """)
        case .unsupportedEndpoint:
            return ValidationError("\(error)")
        case .keyFile(let problem):
            // A file that cannot be used, as any bad input: one line naming it, exit 1.
            return failure(problem)
        }
    }

    /// A worker's refusal of its settings in the options' words.
    static func worded(_ error: WorkerSetupError) -> Error {
        switch error {
        case .networkWithoutOwnRoots(let endpoint):
            return ValidationError(
                """
                --connect \(endpoint) is on the network: give this worker its own --input-root (one per media folder) and \
                --output-root (or worker.input-roots and worker.output-root in its config); jobs outside them are refused
                """)
        }
    }
}
