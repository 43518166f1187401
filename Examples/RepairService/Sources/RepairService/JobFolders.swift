import DriftKit
import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import SystemPackage

/// One folder per repair: the two uploads, then the repaired file.
struct JobFolders: Sendable {
    let root: URL

    /// Takes the upload, repairs it and answers with the report (JSON); a bad upload is a 400, a recording DriftKit
    /// cannot repair a 422 naming the file and the cause.
    func repair(_ request: Request, context: some RequestContext) async throws -> Response {
        let id = UUID()
        let folder = root.appendingPathComponent(id.uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let upload = try await Upload.receive(request, into: folder)
        guard let recording = upload.files["recording"], let reference = upload.files["reference"] else {
            try? FileManager.default.removeItem(at: folder)
            throw HTTPError(.badRequest, message: "give two files: the form fields recording and reference")
        }
        let output = folder.appendingPathComponent("repaired." + recording.pathExtension)
        let report: RepairReport
        do throws(RecordingError) {
            // The sound's measurement is the report's: a recorder never starts with its camera. A pair the sound
            // cannot measure (no sound in the reference) still repairs by the lengths.
            let measured = try await SoundMeasure.drift(of: FilePath(recording.path), against: FilePath(reference.path))
            let summary = try await RecordingRepair(
                recording: FilePath(recording.path), output: FilePath(output.path),
                length: .matching(FilePath(reference.path))
            ).run()
            report = RepairReport(id: id, summary: summary, measured: measured)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            let field =
                switch error.file {
                case FilePath(recording.path): "recording"
                case FilePath(reference.path): "reference"
                default: error.file.lastComponent?.string ?? "a file"
                }
            throw HTTPError(.unprocessableContent, message: "\(field): \(Self.reason(error.cause))")
        }
        // The uploads are done with; the repaired file waits for its GET.
        try? FileManager.default.removeItem(at: recording)
        try? FileManager.default.removeItem(at: reference)
        return try Self.json(report, status: .ok)
    }

    /// The repaired file of repair `id`.
    func output(of id: UUID) throws -> String {
        let folder = root.appendingPathComponent(id.uuidString)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard let name = names.first(where: { $0.hasPrefix("repaired.") }) else { throw HTTPError(.notFound) }
        return folder.appendingPathComponent(name).path
    }

    private static func reason(_ cause: RecordingError.Cause) -> String {
        switch cause {
        case .outputExists: "the output exists"
        case .unreadable(let why), .impossible(let why), .failed(let why): why
        case .cancelled: "cancelled"
        }
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
