import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// A multipart form upload streamed to files as it arrives (memory stays flat for an hour of audio): each file field
/// is written to `folder` under its field's name and its file's extension.
final class Upload {
    /// The files received, by form field.
    private(set) var files: [String: URL] = [:]
    private let folder: URL
    private var headers: [String: String] = [:]
    private var current: FileHandle?
    private var failure: (any Error)?

    private init(folder: URL) { self.folder = folder }

    static func receive(_ request: Request, into folder: URL) async throws -> Upload {
        guard let type = request.headers[.contentType], let boundary = Self.boundary(of: type) else {
            throw HTTPError(.unsupportedMediaType, message: "send multipart/form-data")
        }
        let upload = Upload(folder: folder)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in upload.headers[name.lowercased()] = value }
        parser.onBody = { buffer in upload.write(&buffer) }
        parser.onPartComplete = { upload.endPart() }
        do {
            for try await buffer in request.body {
                try parser.execute(buffer)
                if let failure = upload.failure { throw failure }
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError(.badRequest, message: "the upload could not be read: \(error)")
        }
        try? upload.current?.close()
        return upload
    }

    /// A part's bytes: the first opens its file (a field without a file name is ignored).
    private func write(_ buffer: inout ByteBuffer) {
        guard failure == nil else { return }
        if current == nil {
            guard let disposition = headers["content-disposition"],
                let name = Self.parameter("name", in: disposition), ["recording", "reference"].contains(name),
                let file = Self.parameter("filename", in: disposition)
            else { return }
            let ext = URL(fileURLWithPath: file).pathExtension.lowercased()
            let safe = ext.allSatisfy { $0.isLetter || $0.isNumber } && !ext.isEmpty && ext.count <= 5 ? ext : "wav"
            let url = folder.appendingPathComponent("\(name).\(safe)")
            guard FileManager.default.createFile(atPath: url.path, contents: nil),
                let handle = try? FileHandle(forWritingTo: url)
            else {
                failure = HTTPError(.internalServerError, message: "cannot store the upload")
                return
            }
            current = handle
            files[name] = url
        }
        do {
            // Small blocking writes of the chunks NIO hands over; a service of many uploads would use NIO's file IO.
            try current?.write(contentsOf: buffer.readableBytesView)
        } catch {
            failure = error
        }
    }

    private func endPart() {
        try? current?.close()
        current = nil
        headers = [:]
    }

    static func boundary(of contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        return parameter("boundary", in: contentType)
    }

    /// `key=value` or `key="value"` from a header's parameters.
    static func parameter(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";") {
            let pair = piece.trimmingCharacters(in: .whitespaces)
            guard pair.lowercased().hasPrefix(key + "=") else { continue }
            let value = pair.dropFirst(key.count + 1)
            return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                ? String(value.dropFirst().dropLast()) : String(value)
        }
        return nil
    }
}
