import DriftAV
import DriftAudio
import DriftCore
import DriftRules
import Foundation

extension SoundGroupRules {
    /// The group of `path` under `root`; "" when there are no parts.
    public func group(of path: String, root: String) -> String {
        guard !parts.isEmpty else { return "" }
        var metadata: RecordingMetadata?
        let needsMetadata = parts.contains { if case .device(.metadata) = $0 { return true } else { return false } }
        if needsMetadata {
            let ixml = parts.contains { if case .device(.metadata(.ixml)) = $0 { return true } else { return false } }
            metadata = try? RecordingProbe.measure(path, metadata: true, ixml: ixml).metadata
        }
        return parts.map { part in
            switch part {
            case .day: return Self.day(of: path) ?? "no date"
            case .device(let source):
                return DeviceRules(sources: [source]).identify(recording: path, root: root, metadata: metadata).name
            }
        }.joined(separator: " · ")
    }

    /// The day `path` started, `YYYY-MM-DD`, from the first of its BWF origination date, its container's
    /// `creation_time` (or `date`) tag and its modification time.
    public static func day(of path: String) -> String? {
        if AudioInput.library(for: path) == .libsndfile {
            if let reader = try? AudioFileReader(path: path),
                let date = reader.metadata().broadcastInfo?.originationDate,
                let day = isoDay(date)
            {
                return day
            }
        } else if let info = try? MediaProbe.probe(path) {
            let tags = [info.tags] + info.streams.map(\.tags)
            for key in ["creation_time", "date"] {
                if let day = tags.lazy.compactMap({ $0[key] }).compactMap(isoDay).first { return day }
            }
        }
        var status = stat()
        guard PathText.withCString(path, { stat($0, &status) }) == 0 else { return nil }
        var seconds = status.st_mtim.tv_sec
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return nil }
        return String(format: "%04d-%02d-%02d", Int(local.tm_year) + 1900, Int(local.tm_mon) + 1, Int(local.tm_mday))
    }

    /// `2026-11-24`, `2026:11:24`, `2026/11/24`, `2026-11-24T09:13:22Z`... as `2026-11-24`; nil for anything else.
    static func isoDay(_ text: String) -> String? {
        let digits = Array(text.trimmingCharacters(in: .whitespaces).prefix(10))
        guard digits.count == 10, [4, 7].allSatisfy({ "-:/.".contains(digits[$0]) }) else { return nil }
        let numbers = [0..<4, 5..<7, 8..<10].map { Int(String(digits[$0])) }
        guard let year = numbers[0], let month = numbers[1], let day = numbers[2], year > 1900,
            (1...12).contains(month),
            (1...31).contains(day)
        else { return nil }
        return String(format: "%04d-%02d-%02d", year, month, day)
    }
}
