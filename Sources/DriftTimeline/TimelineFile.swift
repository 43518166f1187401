import DriftCore
import Foundation

public import struct SystemPackage.FilePath

/// A timeline file to write, its format named by its extension.
public struct TimelineFile: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        /// OpenTimelineIO JSON.
        case otio
        /// Final Cut Pro X XML 1.10.
        case fcpxml
        /// CMX3600 edit decision lists.
        case edl
    }

    /// Absolute path.
    public var path: FilePath
    public var format: Format
    /// What the audio tracks point at.
    public var audio: SyncTimeline.AudioMedia

    /// nil when the extension names no format this writes.
    public init?(path: FilePath, audio: SyncTimeline.AudioMedia = .recordings) {
        guard let format = path.extension.flatMap({ Format(rawValue: $0.lowercased()) }) else { return nil }
        self.path = path
        self.format = format
        self.audio = audio
    }

    /// Writes `timeline`, each file through a temporary name renamed into place: the paths written (an EDL per camera
    /// track where there are several: `NAME-TRACK.edl` beside the one asked for).
    ///
    /// - Throws: `TimelineError` naming the file that could not be written.
    public func write(_ timeline: EditTimeline) throws(TimelineError) -> [FilePath] {
        try writeTexts(timeline).map { FilePath(pathText: $0) }
    }

    private func writeTexts(_ timeline: EditTimeline) throws(TimelineError) -> [String] {
        let path = path.pathText
        switch format {
        case .otio:
            try Self.save(OTIOWriter.text(timeline), to: path)
            return [path]
        case .fcpxml:
            try Self.save(FCPXMLWriter.text(timeline), to: path)
            return [path]
        case .edl:
            let lists = EDLWriter.lists(timeline)
            guard lists.count > 1 else {
                try Self.save(lists.first?.text ?? "TITLE: \(timeline.name)\nFCM: NON-DROP FRAME\n", to: path)
                return [path]
            }
            let stem = (path as NSString).deletingPathExtension
            let ext = (path as NSString).pathExtension
            var written: [String] = []
            for (track, text) in lists {
                let safe = String(track.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
                let file = "\(stem)-\(safe).\(ext)"
                try Self.save(text, to: file)
                written.append(file)
            }
            return written
        }
    }

    private static func save(_ text: String, to path: String) throws(TimelineError) {
        let temporary = path + ".driftfix-tmp"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            if PathText.withCStrings(temporary, path, { rename($0, $1) }) != 0 {
                let reason = String(cString: strerror(errno))
                _ = PathText.withCString(temporary, { unlink($0) })
                throw TimelineError(path: FilePath(pathText: path), reason: reason)
            }
        } catch let error as TimelineError {
            throw error
        } catch {
            _ = PathText.withCString(temporary, { unlink($0) })
            throw TimelineError(path: FilePath(pathText: path), reason: (error as NSError).localizedDescription)
        }
    }
}

/// A timeline that could not be written: the file and why.
public struct TimelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file that could not be written.
    public var path: FilePath
    public var reason: String
    public var description: String { "\(path.pathText): cannot write the timeline (\(reason))" }
}
