import Foundation
import Synchronization

/// Who may talk to a CURVE coordinator: one policy over one allowlist, shared by the ZAP handler (each handshake)
/// and the coordinator's socket loop (each message, so a key removed from the allowlist cuts off a worker that is
/// already connected).
///
/// A key found missing is revoked only when it is still missing a second later: an editor rewriting a key file
/// (empty for a moment) must not cut off the fleet. Per-message answers are cached for a second, so the allowlist is
/// read at most that often, not per message.
public final class AdmissionPolicy: Sendable {
    /// What the socket loop should do with a message from a key.
    public enum Decision: Sendable, Equatable {
        case admitted
        /// Missing from the allowlist, but not for long enough to be a revocation: still served.
        case pending
        /// Gone from the allowlist for a second or more: the worker is cut off.
        case revoked
    }

    /// The allowlist's file or folder.
    public let path: String
    private struct State {
        var allowlist: KeyAllowlist
        var cache: [String: Bool] = [:]
        var cachedAt = -Double.infinity
        var missingSince: [String: Double] = [:]
    }
    private let state: Mutex<State>
    /// How long a key must stay missing before it is revoked, in seconds.
    public let grace: Double

    /// - Parameter alsoAllow: keys admitted besides the allowlist's (the coordinator's own, for its local workers).
    public init(allowlist path: String, alsoAllow: [String] = [], grace: Double = 1) {
        self.path = path
        self.grace = grace
        state = Mutex(State(allowlist: KeyAllowlist(path: path, alsoAllow: alsoAllow)))
    }

    /// Whether the file or folder exists.
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }
    /// Why the allowlist cannot be trusted (writable by others, a link), if so.
    public var unsafePermissions: String? { state.withLock { $0.allowlist.unsafePermissions } }
    /// Lines of the allowlist that are not keys.
    public var problems: [String] { state.withLock { $0.allowlist.problems } }
    /// Keys admitted from the allowlist.
    public var count: Int { state.withLock { $0.allowlist.count } }

    /// A handshake: whether `key` (Z85) is admitted now, after picking up any change to the allowlist.
    public func admitsHandshake(_ key: String) -> Bool {
        state.withLock { $0.allowlist.admits(key) }
    }

    /// A message from `key` at `now` (seconds on the caller's clock).
    public func decision(for key: String, at now: Double) -> Decision {
        state.withLock { state in
            if now - state.cachedAt > 1 {
                state.cache.removeAll(keepingCapacity: true)
                state.cachedAt = now
            }
            let allowed: Bool
            if let cached = state.cache[key] {
                allowed = cached
            } else {
                allowed = state.allowlist.admits(key)
                state.cache[key] = allowed
            }
            if allowed {
                state.missingSince[key] = nil
                return .admitted
            }
            let since = state.missingSince[key] ?? now
            state.missingSince[key] = since
            return now - since >= grace ? .revoked : .pending
        }
    }
}
