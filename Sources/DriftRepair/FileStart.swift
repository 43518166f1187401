import DriftAV
import DriftAudio
import Foundation

/// When a file's recording began by its device's calendar clock, as its own metadata says: a BWF origination date and
/// time, or a container's `creation_time`. Cameras and recorders seldom agree on the time zone or to the second, but
/// the differences between one device's takes are right: the order of takes decides a clip whose sound repeats. A
/// file's modification time is not used (copying the media sets it).
public enum FileStart {
    /// Seconds since 1970 of `path`'s start (its clock's local time read as UTC where it names no zone), or nil.
    public static func seconds(of path: String) -> Double? {
        if AudioInput.library(for: path) == .libsndfile {
            guard let reader = try? AudioFileReader(path: path), let bext = reader.metadata().broadcastInfo else {
                return nil
            }
            return parse(bext.originationDate + "T" + bext.originationTime)
        }
        guard let info = try? MediaProbe.probe(path) else { return nil }
        let tags = [info.tags] + info.streams.map(\.tags)
        return tags.lazy.compactMap { $0["creation_time"] }.compactMap(parse).first
    }

    /// `2026-11-24T09:13:22.250000Z`, `2026-11-24 09:13:22`, `2026:11:24T09:13:22`... as seconds since 1970 (UTC);
    /// nil for anything else, and for the epoch itself (a camera that never set its clock).
    static func parse(_ text: String) -> Double? {
        let characters = Array(text.trimmingCharacters(in: .whitespaces))
        guard characters.count >= 19, [4, 7].allSatisfy({ "-:/.".contains(characters[$0]) }),
            "T ".contains(characters[10]), characters[13] == ":" || characters[13] == ".",
            characters[16] == ":" || characters[16] == "."
        else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(characters[range])) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            year > 1971, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if characters.count > 20, characters[19] == "." {
            let digits = characters[20...].prefix { $0.isNumber }
            fraction = Double("0." + String(digits)) ?? 0
        }
        var parts = DateComponents()
        (parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second) = (
            year, month, day, hour, minute, second
        )
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: parts).map { $0.timeIntervalSince1970 + fraction }
    }
}
