import Foundation

/// scripts/otlp-receiver.py on a free loopback port: a real OTLP/HTTP trace receiver whose requests are decoded by
/// the opentelemetry-proto package (installed by scripts/install-deps.sh in the checkout's venv), each span one
/// JSON object.
public final class OTLPReceiver {
    /// The venv's Python (`DRIFTFIX_OTIO_PYTHON` overrides).
    public static let python =
        ProcessInfo.processInfo.environment["DRIFTFIX_OTIO_PYTHON"] ?? repository + "/.build-otio/bin/python"
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: python) }
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path

    private let folder = TemporaryFolder("driftfix-otlp")
    private let child: Child
    public let port: Int

    public init() throws {
        child = try Child(
            Self.python,
            [
                Self.repository + "/scripts/otlp-receiver.py", "--port-file", folder.file("port"), "--out",
                folder.file("spans.jsonl"),
            ])
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: folder.file("port")) { usleep(25_000) }
        port = Int((try? String(contentsOfFile: folder.file("port"), encoding: .utf8)) ?? "") ?? 0
    }

    deinit { child.send(SIGTERM) }

    /// `OTEL_EXPORTER_OTLP_ENDPOINT` for this receiver.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Every span received so far, as the receiver wrote it.
    public var spans: [[String: Any]] {
        let text = (try? String(contentsOfFile: folder.file("spans.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
