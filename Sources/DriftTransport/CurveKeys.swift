internal import CZMQ
import DriftCore
import Foundation

public import struct SystemPackage.FilePath

/// A CURVE key pair in Z85 text (40 characters each), as libzmq takes them.
public struct CurveKeyPair: Sendable, Equatable {
    public let publicKey: String
    public let secretKey: String

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A fresh key pair from libzmq (its CSPRNG).
    public static func generate() throws(TransportError) -> CurveKeyPair {
        try ZMQ.load()
        var publicText = [CChar](repeating: 0, count: 41)
        var secretText = [CChar](repeating: 0, count: 41)
        guard driftfix_zmq_curve_keypair(&publicText, &secretText) == 0 else { throw ZMQ.error("zmq_curve_keypair") }
        return CurveKeyPair(publicKey: text(publicText), secretKey: text(secretText))
    }

    /// The public key that belongs to a secret key (both Z85).
    public static func publicKey(ofSecret secret: String) -> String? {
        var publicText = [CChar](repeating: 0, count: 41)
        guard driftfix_zmq_curve_public(&publicText, secret) == 0 else { return nil }
        return text(publicText)
    }

    /// Whether `text` is a Z85-encoded 32-byte key.
    public static func isValidKey(_ text: String) -> Bool {
        decode(text) != nil
    }

    /// The 32 key bytes of a Z85 key.
    static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count == 40, text.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard driftfix_zmq_z85_decode(&bytes, text) != nil else { return nil }
        return bytes
    }

    /// The Z85 text of 32 key bytes.
    static func encode(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        guard driftfix_zmq_z85_encode(&text, bytes, 32) != nil else { return nil }
        return Self.text(text)
    }

    /// A NUL-terminated C buffer as text.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a key file cannot be used; one line naming the file.
public struct KeyFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The key file.
    public let path: FilePath
    public let reason: String
    public var description: String { "\(path.pathText): \(reason)" }

    init(path text: String, reason: String) {
        path = FilePath(pathText: text)
        self.reason = reason
    }
}

/// Key files as `driftfix keygen` writes them: `NAME.key` (public and secret key; readable by its owner only) and
/// `NAME.pub` (the public key, to copy into the other side's allowlist or server-key option). Text, one
/// `key = "Z85"` per line, `#` comments.
public enum CurveKeyFile {
    /// Writes `folder/name.key` (mode 0600, never over an existing file unless `replace`) and `folder/name.pub`.
    public static func write(_ pair: CurveKeyPair, name: String, folder: FilePath, replace: Bool = false)
        throws(KeyFileError)
    {
        let secretPath = folder.pathText + "/" + name + ".key"
        let publicPath = folder.pathText + "/" + name + ".pub"
        let header = "# driftfix CURVE key pair \"\(name)\", made \(ISO8601DateFormatter().string(from: Date()))\n"
        try create(
            secretPath, mode: 0o600, replace: replace,
            text: header
                + "# SECRET: keep it on this machine, readable by its owner only.\n"
                + "public-key = \"\(pair.publicKey)\"\nsecret-key = \"\(pair.secretKey)\"\n")
        do {
            try create(
                publicPath, mode: 0o644, replace: replace,
                text: header
                    + "# Public: give it to the coordinator's allowlist (a worker) or to workers' --server-key (a coordinator).\n"
                    + "public-key = \"\(pair.publicKey)\"\n")
        } catch {
            PathText.withCString(secretPath, { unlink($0) })  // never half a pair
            throw error
        }
    }

    /// Reads a secret key file, refusing one that anybody but its owner can read or write, one owned by another
    /// user, a symbolic link, and one whose public key does not belong to its secret key.
    public static func loadSecret(_ file: FilePath) throws(KeyFileError) -> CurveKeyPair {
        let path = file.pathText
        // One descriptor for the checks and the read: the file checked is the file read.
        let descriptor = PathText.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "a symbolic link; give the key file itself" : String(cString: strerror(errno))
            throw KeyFileError(path: path, reason: reason)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw KeyFileError(path: path, reason: "not a regular file")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw KeyFileError(
                path: path,
                reason: "secret key file is accessible to others (mode \(String(mode, radix: 8))); "
                    + "refusing it - run chmod 600 \(path), and make a new key pair if others may have read it")
        }
        guard info.st_uid == geteuid() else {
            throw KeyFileError(
                path: path, reason: "secret key file belongs to user \(info.st_uid), not to this user (\(geteuid()))")
        }
        var data = [UInt8](repeating: 0, count: 4096)
        let count = data.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, 4095) }
        guard count > 0 else { throw KeyFileError(path: path, reason: "cannot be read") }
        let fields = Dictionary(parse(String(decoding: data.prefix(count), as: UTF8.self)).map { ($0.name, $0.value) })
        { first, _ in first }
        guard let publicKey = fields["public-key"], let secretKey = fields["secret-key"] else {
            throw KeyFileError(
                path: path, reason: "no public-key and secret-key lines (write one with driftfix keygen)")
        }
        try requireLibrary(path)
        guard CurveKeyPair.isValidKey(publicKey), CurveKeyPair.isValidKey(secretKey) else {
            throw KeyFileError(path: path, reason: "a key is not 40 characters of Z85")
        }
        guard CurveKeyPair.publicKey(ofSecret: secretKey) == publicKey else {
            throw KeyFileError(path: path, reason: "its public-key does not belong to its secret-key")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// Keys are checked by libzmq's Z85 and CURVE functions: without libzmq, say so rather than call a key invalid.
    private static func requireLibrary(_ path: String) throws(KeyFileError) {
        do throws(TransportError) { try ZMQ.load() } catch {
            throw KeyFileError(path: path, reason: "cannot check its keys: \(error.text)")
        }
    }

    /// Reads the public key of a `.pub` (or `.key`) file.
    public static func loadPublic(_ file: FilePath) throws(KeyFileError) -> String {
        let path = file.pathText
        let fields = try read(path)
        guard let key = fields["public-key"] else { throw KeyFileError(path: path, reason: "no public-key line") }
        try requireLibrary(path)
        guard CurveKeyPair.isValidKey(key) else {
            throw KeyFileError(path: path, reason: "the public key is not 40 characters of Z85")
        }
        return key
    }

    /// `name = "value"` lines; a bare 40-character token is taken as a public key (a plain allowlist line). Only
    /// whole lines starting with `#` are comments: `#` and `=` are Z85 characters.
    static func parse(_ text: String) -> [(name: String, value: String)] {
        var fields: [(String, String)] = []
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if let quote = line.firstIndex(of: "\""), let equals = line[..<quote].firstIndex(of: "="),
                let end = line.lastIndex(of: "\""), end > quote
            {
                let name = line[..<equals].trimmingCharacters(in: .whitespaces)
                fields.append((name, String(line[line.index(after: quote)..<end])))
            } else {
                fields.append(("public-key", line))
            }
        }
        return fields
    }

    private static func read(_ path: String) throws(KeyFileError) -> [String: String] {
        guard let data = PathText.contents(of: path), data.count < 65_536 else {
            let exists = PathText.withCString(path) { access($0, F_OK) == 0 }
            throw KeyFileError(path: path, reason: exists ? "cannot be read" : "no such file")
        }
        return Dictionary(parse(String(decoding: data, as: UTF8.self)).map { ($0.name, $0.value) }) { first, _ in first
        }
    }

    private static func create(_ path: String, mode: mode_t, replace: Bool, text: String) throws(KeyFileError) {
        if replace { PathText.withCString(path, { unlink($0) }) }
        let descriptor = PathText.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let reason =
                errno == EEXIST ? "already exists (use --force to replace it)" : String(cString: strerror(errno))
            throw KeyFileError(path: path, reason: reason)
        }
        defer { close(descriptor) }
        _ = fchmod(descriptor, mode)  // not narrowed by the umask
        let count = text.utf8.count
        let written = text.withCString { Glibc.write(descriptor, $0, count) }
        guard written == count, fsync(descriptor) == 0 else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "short write (disk full?)"
            _ = PathText.withCString(path, { unlink($0) })
            throw KeyFileError(path: path, reason: reason)
        }
    }
}
