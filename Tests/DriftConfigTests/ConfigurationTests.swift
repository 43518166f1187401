import DriftCore
import Foundation
import Testing

import struct SystemPackage.FilePath

@testable import DriftConfig

@Suite("Configuration file")
struct ConfigurationTests {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../config/driftfix.yaml").standardized.path

    @Test("the shipped config/driftfix.yaml parses and states the defaults")
    func shipped() throws {
        let configuration = try Configuration.load(path: FilePath(ConfigurationTests.shipped))
        #expect(configuration == Configuration())
    }

    @Test(
        "the slurm section: sbatch options, the tasks' log folder, resubmits, the start grace; a non-option or a bad count is refused"
    )
    func slurm() throws {
        let yaml = """
            slurm:
              args: ["--partition=night", "--time=8:00:00"]
              log-folder: /shared/driftfix/logs
              max-resubmits: 3
              start-grace: 300
            """
        let configuration = try Configuration.parse(yaml, path: "c.yaml")
        #expect(configuration.slurm.arguments == ["--partition=night", "--time=8:00:00"])
        #expect(configuration.slurm.logFolder == "/shared/driftfix/logs")
        #expect(configuration.slurm.maxResubmits == 3)
        #expect(configuration.slurm.startGrace == .seconds(300) && Configuration().slurm.startGrace == .seconds(60))
        for grace in ["0", "-5", "1.5", "soon"] {
            #expect(throws: ConfigurationError.self, "start-grace \(grace)") {
                try Configuration.parse("slurm:\n  start-grace: \(grace)\n", path: "c.yaml")
            }
        }
        #expect(Configuration().slurm.maxResubmits == 8 && Configuration().slurm.logFolder == nil)
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("slurm:\n  args: [night]\n", path: "c.yaml")
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("slurm:\n  max-resubmits: -1\n", path: "c.yaml")
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("slurm:\n  partition: night\n", path: "c.yaml")
        }
    }

    @Test("worker.idle-cores: a count of cores a long job may borrow; unset by default; a negative count is refused")
    func idleCores() throws {
        #expect(try Configuration.parse("worker:\n  idle-cores: 3\n", path: "c.yaml").workerIdleCores == 3)
        #expect(try Configuration.parse("worker:\n  idle-cores: 0\n", path: "c.yaml").workerIdleCores == 0)
        #expect(Configuration().workerIdleCores == nil)
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("worker:\n  idle-cores: -1\n", path: "c.yaml")
        }
    }

    @Test(
        "scan.pair-by and scan.sound-output: name by default; a template below the output root with {stem} and an audio extension"
    )
    func pairBySound() throws {
        #expect(Configuration().pairing.pairBy == .name && Configuration().pairing.soundOutput == "{folder}/{stem}.wav")
        let rules = try Configuration.parse(
            "scan:\n  pair-by: name-then-sound\n  sound-output: \"{stem}-{recording}.flac\"\n", path: "c.yaml"
        ).pairing
        #expect(rules.pairBy == .nameThenSound && rules.soundOutput == "{stem}-{recording}.flac")
        #expect(!Configuration().repair.mux)
        #expect(try Configuration.parse("repair:\n  mux: true\n", path: "c.yaml").repair.mux)
        #expect(Configuration().pairing.soundGroup.parts.isEmpty)
        #expect(
            try Configuration.parse("scan:\n  sound-group: root\n", path: "c.yaml").pairing.soundGroup.parts.isEmpty)
        #expect(
            try Configuration.parse("scan:\n  sound-group: day\n", path: "c.yaml").pairing.soundGroup.parts == [.day])
        let both = try Configuration.parse("scan:\n  sound-group: [\"{1}\", day]\n", path: "c.yaml").pairing.soundGroup
        #expect(both.parts == [.device(.path("{1}")), .day])
        #expect(Configuration().pairing.soundSearch == .indexed)
        #expect(
            try Configuration.parse("scan:\n  sound-search: exhaustive\n", path: "c.yaml").pairing.soundSearch
                == .exhaustive)
        for bad in [
            "pair-by: names", "sound-search: every", "sound-output: \"{folder}/clip.wav\"",
            "sound-output: \"../{stem}.wav\"",
            "sound-output: \"/abs/{stem}.wav\"", "sound-output: \"{stem}.mov\"", "sound-group: week", "sound-group: []",
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try Configuration.parse("scan:\n  \(bad)\n", path: "c.yaml")
            }
        }
    }

    @Test("method rules")
    func rules() throws {
        let yaml = """
            repair:
              method: resample
              quality: best
              max-attempts: 5
              rules:
                - match: "**/recorder-B/**"
                  method: stretch
                  reason: drops buffers
                - match: "*_lecture.wav"
                  method: stretch
            """
        let configuration = try Configuration.parse(yaml, path: "c.yaml")
        let policy = configuration.repair
        #expect(configuration.maxAttempts == 5)
        #expect(policy.quality == .best)
        #expect(policy.rules.count == 2)
        #expect(
            policy.method(for: "/a/recorder-B/t.wav")
                == MethodChoice(method: .stretch, reason: "config rule \"**/recorder-B/**\": drops buffers"))
        #expect(policy.method(for: "/a/x_lecture.wav").method == .stretch)
    }

    @Test("the content section: every key, and bad values named with line and key")
    func content() throws {
        let yaml = """
            content:
              measure: both
              confidence-floor: 0.65
              start: keep
              residual-limit-ms: 0.5
              header-precision-ms: 20
            """
        let policy = try Configuration.parse(yaml, path: "c.yaml").content
        #expect(
            policy
                == ContentPolicy(
                    mode: .both, confidenceFloor: 0.65, start: .keep, residualLimit: .milliseconds(0.5),
                    headerPrecision: .milliseconds(20)))
        #expect(
            Configuration().content.mode == .auto,
            "the default: the sound measures the pairs whose lengths no clock explains")
        for (bad, message) in [
            (
                "content:\n  measure: sound",
                "c.yaml:2: content.measure: 'sound' is not one of: headers, auto, content, both"
            ),
            ("content:\n  confidence-floor: 1.5", "c.yaml:2: content.confidence-floor: must be from 0 to 1"),
            ("content:\n  residual-limit-ms: 0", "c.yaml:2: content.residual-limit-ms: must be greater than 0"),
            ("content:\n  start: middle", "c.yaml:2: content.start: 'middle' is not one of: reference, keep"),
            ("content:\n  mesure: both", "c.yaml:2: content.mesure: unknown key"),
        ] {
            #expect(throws: ConfigurationError.self) { try Configuration.parse(bad, path: "c.yaml") }
            do {
                _ = try Configuration.parse(bad, path: "c.yaml")
            } catch {
                #expect("\(error)".hasPrefix(message), "\(error)")
            }
        }
    }

    @Test("journal, metrics and security sections")
    func operations() throws {
        let yaml = """
            journal:
              path: /var/lib/driftfix/journal.sqlite
              history-runs: 30
              alert-ppm: 12.5
            metrics:
              textfile: /var/lib/node_exporter/driftfix.prom
            security:
              secret-key: /etc/driftfix/keys/coordinator.key
              allow: /etc/driftfix/keys/allow
              server-key: ""
            """
        let configuration = try Configuration.parse(yaml, path: "ops.yaml")
        #expect(configuration.journal.path == "/var/lib/driftfix/journal.sqlite")
        #expect(configuration.journal.historyRuns == 30 && configuration.journal.alertPPM == 12.5)
        #expect(configuration.journal.metricsFile == "/var/lib/node_exporter/driftfix.prom")
        #expect(configuration.security.secretKey == "/etc/driftfix/keys/coordinator.key")
        #expect(configuration.security.allow == "/etc/driftfix/keys/allow")
        #expect(configuration.security.serverKey == nil, "empty means unset")
    }

    @Test("an empty file is all defaults")
    func empty() throws {
        #expect(try Configuration.parse("", path: "e.yaml") == Configuration())
        #expect(try Configuration.parse("# only comments\n", path: "e.yaml") == Configuration())
    }

    @Test(
        "errors name the line and the key",
        arguments: [
            ("repair:\n  metod: stretch\n", 2, "repair.metod", "unknown key"),
            ("repair:\n  method: strech\n", 2, "repair.method", "'strech' is not one of: resample, stretch"),
            ("repiar:\n  method: stretch\n", 1, "repiar", "unknown key"),
            ("repair:\n  quality: ultra\n", 2, "repair.quality", "not one of"),
            ("repair:\n  rules:\n    - method: stretch\n", 3, "repair.rules[0].match", "missing"),
            (
                "repair:\n  rules:\n    - match: x\n      method: stretch\n      colour: red\n", 5,
                "repair.rules[0].colour", "unknown key"
            ),
            ("repair:\n  rules: yes\n", 2, "repair.rules", "expected a list"),
            ("repair:\n  max-attempts: 0\n", 2, "repair.max-attempts", "whole number from 1 to 100"),
            ("journal:\n  history-runs: 1.5\n", 2, "journal.history-runs", "whole number"),
            ("journal:\n  alert-ppm: 0\n", 2, "journal.alert-ppm", "greater than 0"),
            ("metrics:\n  file: x\n", 2, "metrics.file", "unknown key"),
            ("security:\n  public-key: x\n", 2, "security.public-key", "unknown key"),
        ])
    func errors(yaml: String, line: Int, key: String, message: String) {
        expectRefused(yaml, line: line, key: key, message: message)
    }

    @Test("a duplicate key is refused with its line")
    func duplicate() {
        do {
            _ = try Configuration.parse("repair:\n  method: stretch\n  method: resample\n", path: "d.yaml")
            Issue.record("accepted a duplicate key")
        } catch {
            #expect(error.line != nil, "\(error)")
            #expect(error.message.contains("duplicate key 'method'"), "\(error)")
        }
    }

    @Test("YAML syntax errors carry the line")
    func syntax() {
        do {
            _ = try Configuration.parse("repair:\n  method: [resample\n  quality: best\n", path: "s.yaml")
            Issue.record("accepted broken YAML")
        } catch {
            #expect(error.line != nil)
            #expect(error.message.hasPrefix("YAML syntax"))
        }
    }

    @Test("a missing file")
    func missing() {
        #expect(throws: ConfigurationError(path: "/nope.yaml", line: nil, key: nil, message: "no such file")) {
            try Configuration.load(path: "/nope.yaml")
        }
    }
}

@Suite("Configuration: scan and drift")
struct ScanConfigurationTests {
    @Test("pairing and drift sections")
    func sections() throws {
        let yaml = """
            scan:
              recordings: [wav, .flac]
              references: [mp4, duration]
              patterns:
                - recording: "{stem}_audio.wav"
                  reference: "{stem}.mp4"
              ignore: ["**/.Trash/**"]
              movie-header-fallback: yes
            drift:
              tolerance-ms: 0.5
              refuse-limit-percent: 10
              clock-drift-limit-ppm: 500
            """
        let c = try Configuration.parse(yaml, path: "c.yaml")
        #expect(c.pairing.recordingExtensions == ["wav", "flac"])
        #expect(c.pairing.referenceExtensions == ["mp4", "duration"])
        #expect(c.pairing.patterns.count == 1 && c.pairing.ignore.count == 1 && c.pairing.movieHeaderFallback)
        #expect(c.drift.tolerance == Rational(1, 2000))
        #expect(c.drift.refuseLimit == Rational(1, 10))
        #expect(c.drift.clockDriftLimitPPM == 500)
    }

    @Test("repair.engine and per-rule engines: the first matching rule that names an engine decides")
    func engines() throws {
        let yaml = """
            repair:
              engine: soxr
              rules:
                - match: "**/archive/**"
                  engine: libsamplerate
                  reason: "bit-for-bit with last year's repairs"
                - match: "**/handheld/**"
                  method: stretch
            """
        let policy = try Configuration.parse(yaml, path: "c.yaml").repair
        #expect(policy.engine == .soxr)
        #expect(policy.engine(for: "/m/archive/t.wav") == .libsamplerate)
        #expect(
            policy.engine(for: "/m/handheld/t.wav") == .soxr
                && policy.method(for: "/m/handheld/t.wav").method == .stretch)
        #expect(
            policy.method(for: "/m/archive/t.wav").method == .resample, "a rule naming only an engine leaves the method"
        )
        #expect(try Configuration.parse("", path: "c.yaml").repair.engine == .auto)
        #expect(try Configuration.parse("repair:\n  engine: auto\n", path: "c.yaml").repair.engine == .auto)
        #expect(throws: ConfigurationError.self) { try Configuration.parse("repair:\n  engine: sox\n", path: "c.yaml") }
        #expect(throws: ConfigurationError.self) {
            try Configuration.parse("repair:\n  rules:\n    - match: x\n", path: "c.yaml")
        }
    }

    @Test("scan.device: one source, or a list of path templates, patterns and metadata fields, in order")
    func device() throws {
        let single = try Configuration.parse("scan:\n  device: \"{1}\"\n", path: "c.yaml")
        #expect(single.pairing.device.sources == [.path("{1}")])
        let yaml = """
            scan:
              device:
                - bwf-originator-reference
                - metadata: ixml:USER/SERIAL
                - pattern: "^(?<site>[^/]+)/[^/]+/(?<unit>[^/]+)/"
                  name: "{site}-{unit}"
                - "(?<device>[A-Z]+[0-9]+)_take"
                - quicktime
                - path: "{2}"
                - folder
            """
        let sources = try Configuration.parse(yaml, path: "c.yaml").pairing.device.sources
        #expect(
            sources.map(\.label) == [
                "bwf-originator-reference", "ixml:USER/SERIAL", "pattern ^(?<site>[^/]+)/[^/]+/(?<unit>[^/]+)/",
                "pattern (?<device>[A-Z]+[0-9]+)_take", "quicktime", "path {2}", "folder",
            ])
        if case .pattern(let pattern) = sources[2] {
            #expect(pattern.name == "{site}-{unit}")
        } else {
            Issue.record("\(sources[2])")
        }
    }

    @Test(
        "errors in the new sections",
        arguments: [
            ("scan:\n  recordings: wav\n", 2, "scan.recordings"),
            ("scan:\n  patterns:\n    - recording: a.wav\n      reference: b.mp4\n", 3, "scan.patterns[0].recording"),
            ("drift:\n  tolerance-ms: -1\n", 2, "drift.tolerance-ms"),
            ("drift:\n  tolerance: 1\n", 2, "drift.tolerance"),
            ("scan:\n  movie-header-fallback: maybe\n", 2, "scan.movie-header-fallback"),
            ("scan:\n  device: \"{0}\"\n", 2, "scan.device"),
            ("scan:\n  device:\n    - folder\n    - \"(?<unit>x)\"\n", 4, "scan.device[1]"),
            ("scan:\n  device:\n    - metadata: make\n", 3, "scan.device[0].metadata"),
            ("scan:\n  device:\n    - pattern: \"(?<device>x)\"\n      path: \"{1}\"\n", 3, "scan.device[0]"),
            ("scan:\n  device: serial-number\n", 2, "scan.device"),
            ("scan:\n  device: []\n", 2, "scan.device"),
        ])
    func errors(yaml: String, line: Int, key: String) {
        expectRefused(yaml, line: line, key: key)
    }
}

/// `yaml` refused at `line`, naming `key` (and saying `message`), in the one-line form `bad.yaml:LINE: KEY: ...`.
private func expectRefused(_ yaml: String, line: Int, key: String, message: String? = nil) {
    do {
        _ = try Configuration.parse(yaml, path: "bad.yaml")
        Issue.record("accepted: \(yaml)")
    } catch {
        #expect(error.line == line, "\(error)")
        #expect(error.key == key, "\(error)")
        if let message { #expect(error.message.contains(message), "\(error)") }
        #expect(error.description.hasPrefix("bad.yaml:\(line): \(key): "))
    }
}
