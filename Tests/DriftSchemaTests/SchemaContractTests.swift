import DriftCore
import DriftSchema
import Foundation
import Testing

/// The schema's promises to its readers: what the wire and the journal carry comes back as it went, a skipped path
/// keeps its kind through a report of an earlier version, and a good run is one rule.
@Suite("Schema: the shapes reports, jobs and journals share")
struct SchemaContractTests {
    static func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    @Test("a clip's task and its places survive JSON, optional fields absent or present")
    func clipTask() throws {
        var place = ClipTask.Place(
            recording: "/m/ZOOM0001.WAV",
            candidate: SoundCandidate(
                recording: 2, startSeconds: -1.25, clarity: 9.5, ambiguity: 0.4, coverage: 0.75, sharpClarity: 21,
                sharpAmbiguity: 0.2))
        place.candidate.repeated = true
        place.candidate.rivals = 3
        place.output = "/o/C0001.wav"
        place.engine = .soxr
        let bare = ClipTask.Place(
            recording: "/m/LAV.WAV",
            candidate: SoundCandidate(recording: 0, startSeconds: 3, clarity: 7, ambiguity: 0.1, coverage: 1))
        let task = ClipTask(
            clip: "/m/C0001.MP4", clipSeconds: 12.5, places: [place, bare], minimumConfidence: 0.5,
            residualLimitMs: 1, quality: .best, mux: true)
        #expect(try Self.roundTrip(task) == task)
        #expect(try Self.roundTrip(task).places[1].candidate.repeated == nil, "absent stays absent")
    }

    @Test(
        "a skipped path's kind: stored, or read from its reason where an earlier report has none",
        arguments: [
            SkippedPath.special(path: "/m/pipe", kind: .fifo),
            SkippedPath.special(path: "/m/sock", kind: .socket, throughLink: true),
            SkippedPath.special(path: "/m/null", kind: .characterDevice),
            SkippedPath.dangling(path: "/m/gone.wav", target: "/nowhere.wav"),
            SkippedPath(path: "/m/loop", reason: "already scanned as /m"),
            SkippedPath(path: "/m/link.wav", reason: "a symbolic link out of the root"),
        ])
    func skippedKinds(skipped: SkippedPath) throws {
        #expect(try Self.roundTrip(skipped) == skipped)
        let withoutKind = try JSONSerialization.data(withJSONObject: [
            "path": skipped.pathText, "reason": skipped.reason,
        ])
        #expect(try JSONDecoder().decode(SkippedPath.self, from: withoutKind).kind == skipped.kind)
    }

    @Test("a good run: nothing refused, failed or left unread; any one of them makes it not good")
    func goodRun() {
        var report = ScanReport(generated: "2026-11-27T00:00:00Z", roots: ["/m"], pairs: [], unpaired: [], errors: [])
        #expect(report.isGoodRun, "an empty folder is not a failure")
        report.errors = [ScanIssue(path: "/m/locked", error: "permission denied")]
        #expect(!report.isGoodRun)
    }
}
