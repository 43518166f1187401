import ArgumentParser
import DriftKit
import Foundation
import Hummingbird
import Logging
import NIOCore

/// An HTTP service on DriftKit: `POST /repair` takes a recording and its reference (multipart form fields `recording`
/// and `reference`), measures the recording's drift by the sound, repairs it to the reference's length exactly, and
/// answers with the report; `GET /outputs/{id}` streams the repaired file.
@main
struct RepairService: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Repair uploaded recordings to their references' lengths over HTTP (a DriftKit example).")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed once listening).")
    var port = 8080

    @Option(help: "Where uploads and repaired files are kept (default: a new folder under the temporary folder).")
    var workFolder: String?

    func run() async throws {
        let folder = try workFolder ?? Self.newWorkFolder()
        let store = JobFolders(root: URL(fileURLWithPath: folder))
        let router = Router()
        router.post("repair") { request, context in try await store.repair(request, context: context) }
        router.get("outputs/:id") { _, context in
            let id = try context.parameters.require("id", as: UUID.self)
            let path = try store.output(of: id)
            var response = Response(status: .ok, body: try await FileIO().loadFile(path: path, context: context))
            response.headers[.contentType] = "application/octet-stream"
            return response
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                // The port actually bound (with --port 0), for scripts that start the service.
                let line = "RepairService listening on \(channel.localAddress?.port ?? 0), files in \(folder)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            })
        try await app.runService()
    }

    static func newWorkFolder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("repair-service-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }
}
