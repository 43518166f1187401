import ArgumentParser
import DriftAV
import DriftMedia
import Foundation

/// What reading a reference's duration costs per file at fleet scale: the own MP4/MOV box parser (which `scan` uses
/// for .mp4/.mov/.m4v references) against FFmpeg's libavformat (which it uses for every other container), on the
/// same files, and whether they agree to the movie's time scale.
struct MovieProbeSpeed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "movieprobe", abstract: "MP4/MOV reference durations: own box parser against libavformat.")

    @Argument(help: "A folder of .mp4/.mov files (made with --files if empty).") var folder: String
    @Option(help: "Files to make when the folder has none (copies of camera-like clips ffmpeg writes).") var files =
        2000

    func run() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var paths = try listed()
        if paths.isEmpty {
            // Three shapes cameras and editors write: plain, NTSC with a tmcd track, fragmented.
            let shapes: [(String, [String])] = [
                ("plain.mp4", ["-r", "25"]),
                ("ntsc.mov", ["-r", "30000/1001", "-timecode", "10:00:00;00"]),
                ("frag.mp4", ["-r", "25", "-movflags", "frag_keyframe+empty_moov"]),
            ]
            for (name, flags) in shapes {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
                process.arguments =
                    [
                        "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=25",
                        "-f", "lavfi", "-i", "sine=d=20", "-t", "20", "-c:v", "libx264", "-preset", "ultrafast",
                        "-c:a", "aac",
                    ] + flags + [(folder as NSString).appendingPathComponent("template-" + name)]
                try process.run()
                process.waitUntilExit()
            }
            for index in 0..<files {
                let (name, _) = shapes[index % shapes.count]
                let template = (folder as NSString).appendingPathComponent("template-" + name)
                let copy = (folder as NSString).appendingPathComponent(
                    String(format: "C%05d.", index) + (name as NSString).pathExtension)
                try FileManager.default.copyItem(atPath: template, toPath: copy)
            }
            paths = try listed()
        }
        var own: [Double] = []
        var clock = ContinuousClock.now
        for path in paths { own.append((try? ReferenceProbe.duration(of: path).get())?.seconds.doubleValue ?? -1) }
        let ownSeconds = (ContinuousClock.now - clock).seconds
        var viaFFmpeg: [Double] = []
        clock = ContinuousClock.now
        for path in paths { viaFFmpeg.append((try? MediaProbe.videoDuration(path))?.seconds.doubleValue ?? -1) }
        let ffmpegSeconds = (ContinuousClock.now - clock).seconds
        // Both state the end in the movie's time scale or finer (ffmpeg writes 1/1000 s): 1 ms apart at most.
        let disagree = zip(own, viaFFmpeg).filter { $0 < 0 || $1 < 0 || abs($0 - $1) > 0.001 }.count
        print(
            String(
                format:
                    "%d MP4/MOV references: own box parser %.2f s (%.0f files/s), libavformat %.2f s (%.0f files/s): %.1fx; disagreeing: %d",
                paths.count, ownSeconds, Double(paths.count) / ownSeconds, ffmpegSeconds,
                Double(paths.count) / ffmpegSeconds,
                ffmpegSeconds / ownSeconds, disagree))
    }

    private func listed() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { ($0.hasSuffix(".mp4") || $0.hasSuffix(".mov")) && !$0.hasPrefix("template-") }.sorted()
            .map { (folder as NSString).appendingPathComponent($0) }
    }
}
