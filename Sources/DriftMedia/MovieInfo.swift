import DriftCore

/// What the box parser learned about an MP4/MOV file: enough to know its presentation duration.
public struct MovieInfo: Sendable, Equatable {
    /// One `elst` entry.
    public struct Edit: Sendable, Equatable {
        /// Duration in the movie timescale.
        public var segmentDuration: UInt64
        /// Start in the media timescale; -1 for an empty edit (a gap).
        public var mediaTime: Int64
    }

    /// One `trak`.
    public struct Track: Sendable, Equatable {
        public var id: UInt32 = 0
        /// `vide`, `soun`, ...
        public var handler: String = ""
        public var mediaTimescale: UInt32 = 0
        public var mediaDuration: UInt64 = 0
        public var edits: [Edit]?
        /// Sum of sample durations from fragments (`trun`), in the media timescale.
        public var fragmentDuration: UInt64 = 0
        /// `trex` default sample duration for fragments.
        public var defaultSampleDuration: UInt32 = 0
    }

    public var movieTimescale: UInt32 = 0
    public var movieDuration: UInt64 = 0
    /// `mehd` fragment duration in the movie timescale, when present.
    public var fragmentDuration: UInt64?
    public var fragmented = false
    public var tracks: [Track] = []

    /// The presentation duration of the first video track, exact: its edit list (empty edits included) when it has
    /// one, else its media duration, else (fragmented files) `mehd` or the sum of its fragments' samples.
    ///
    /// - Parameter movieHeaderFallback: use the movie header's duration when there is no video track.
    public func presentationDuration(movieHeaderFallback: Bool = false) -> Result<(Rational, String), MovieError> {
        guard let video = tracks.first(where: { $0.handler == "vide" }) else {
            guard movieHeaderFallback else { return .failure(.noVideoTrack) }
            return ticks(movieDuration, movieTimescale, "movie header (no video track)")
        }
        if let edits = video.edits, !edits.isEmpty {
            var total: UInt64 = 0
            for edit in edits {
                let (sum, overflow) = total.addingReportingOverflow(edit.segmentDuration)
                guard !overflow else { return .failure(.malformed("edit list duration overflows")) }
                total = sum
            }
            if total > 0 { return ticks(total, movieTimescale, "edit list") }
        }
        if video.mediaDuration > 0 && video.mediaDuration != UInt64(UInt32.max) && video.mediaDuration != UInt64.max {
            let fragmentPart = video.fragmentDuration
            return ticks(
                video.mediaDuration + fragmentPart, video.mediaTimescale,
                fragmentPart > 0 ? "media header + fragments" : "media header")
        }
        if fragmented {
            if let fragmentDuration, fragmentDuration > 0 {
                return ticks(fragmentDuration, movieTimescale, "movie extends header")
            }
            if video.fragmentDuration > 0 {
                return ticks(video.fragmentDuration, video.mediaTimescale, "fragments")
            }
        }
        return .failure(.noDuration)
    }

    private func ticks(_ value: UInt64, _ timescale: UInt32, _ source: String) -> Result<(Rational, String), MovieError>
    {
        guard timescale > 0 else { return .failure(.malformed("timescale 0")) }
        guard let count = Int64(exactly: value) else { return .failure(.malformed("duration out of range")) }
        return .success((Rational(count, Int64(timescale)), source))
    }
}

/// Why a movie's duration cannot be read.
public enum MovieError: Error, Equatable, CustomStringConvertible {
    case notMovie
    case truncated(String)
    case malformed(String)
    case noMovieBox
    case noVideoTrack
    case noDuration

    public var description: String {
        switch self {
        case .notMovie: return "not an MP4/MOV file (no ftyp, moov, mdat or wide box at the start)"
        case .truncated(let what): return "truncated: \(what)"
        case .malformed(let what): return "malformed: \(what)"
        case .noMovieBox: return "no moov box (an unfinished recording?)"
        case .noVideoTrack: return "no video track (set scan.movie-header-fallback to use the movie header)"
        case .noDuration: return "the video track declares no duration"
        }
    }
}
