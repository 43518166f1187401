// swift-tools-version: 6.1
import PackageDescription

// driftfix builds and runs on Linux only (5.6 or later): it relies on openat2 and renameat2, /proc/self/fd and Glibc
// (CLinux stops a build elsewhere with a clear #error). SwiftPM's `platforms` list names Apple systems only, so
// there is none here: the default it implies is no claim that driftfix runs there.
//
// Dependencies point one way, down towards DriftCore: storage (DriftJournal) below the dispatcher's vocabulary
// (DriftJobs), the configuration below the scan's rules (DriftRules), the composition root (DriftKit) above all, the
// command line on top. docs/architecture.md's module table is this graph; scripts/check-imports.py checks both that
// each target declares exactly the modules it imports and that the table says the same, in every test run. C modules
// are imported by exactly one Swift module each (CSndFile and CPCM by DriftAudio, CSampleRate, CSoxr, CPolyphase and CSpectral by DriftDSP,
// CZMQ by the transport, CXXHash by DriftSupport, CZlib by DriftReports, CFFmpeg by DriftAV), always as `internal
// import`, so no C type leaks into a public signature; CLinux (Linux calls) serves DriftAudio, DriftSupport,
// DriftWorker and DriftFixtures.
let package = Package(
    name: "driftfix",
    products: [
        // The library under the command: repair, measure, scan, run a night, read the history. The command line is
        // built on its public API alone.
        .library(name: "DriftKit", targets: ["DriftKit"]),
        .executable(name: "driftfix", targets: ["driftfix"]),
        .executable(name: "driftfix-bench", targets: ["DriftBench"]),
    ],
    // What a library caller may leave out of its build. Live metrics (a `/metrics` listener for a run or a worker)
    // bring swift-nio and swift-prometheus; a caller that serves its own metrics, or none, depends on driftfix with
    // `traits: []` and builds neither. ZeroMQ and FFmpeg need no trait: libzmq and FFmpeg's libraries are loaded at
    // first use, so a caller that never starts a worker or reads compressed audio needs neither installed.
    traits: [
        .trait(
            name: "LiveMetrics",
            description: "Serve live Prometheus metrics from a run or a worker (swift-nio, swift-prometheus)."),
        .default(enabledTraits: ["LiveMetrics"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Live metrics: the Prometheus registry and text exposition, served over a small NIO HTTP listener.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // FilePath: the one path type (paths are bytes to the kernel; a name that is not UTF-8 survives).
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        // Benchmarks that count (allocations, peak memory) rather than time: `swift package benchmark`
        // (scripts/bench-counts.sh). The malloc interposer gives the allocation counts.
        // Traces: swift-distributed-tracing's API (spans, task-local context, W3C propagation); DriftTrace exports
        // them over OTLP/HTTP itself (see docs/operations.md for why not swift-otel).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // DriftKit's documentation: `swift package generate-documentation --target DriftKit` (a command plugin; it adds
        // nothing to any product).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries. Module maps link the library directly (no pkg-config: the headers all live in
        // /usr/include).
        .systemLibrary(name: "CSndFile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSampleRate", providers: [.apt(["libsamplerate0-dev"])]),
        // zlib: the HTML report carries its full pair table gzip-compressed (browsers inflate it natively).
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // libsoxr: the second resampling engine (the library sox's `rate` effect is built on).
        .systemLibrary(name: "CSoxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CXXHash", providers: [.apt(["libxxhash-dev"])]),
        // FFmpeg's libraries (libavformat-dev, libavcodec-dev, libavutil-dev from apt for the headers), loaded at first
        // use rather than linked, and the few C helpers Swift cannot express: error-code macros and a va_list log
        // callback.
        .target(name: "CFFmpeg"),
        // libzmq (libzmq3-dev from apt for the header), loaded at first use rather than linked: only the coordinator,
        // the workers and key generation speak ZeroMQ, and its dozen dependencies slowed every process's start.
        .target(name: "CZMQ"),

        // Linux system calls Swift cannot reach (openat2 for the worker's confinement, renameat2 for outputs that
        // never replace anything but a regular file) and the async-signal-safe removal of temporary files.
        .target(name: "CLinux"),
        .target(name: "CPCM"),
        // The vocabulary: rational time, target lengths, edits, methods, drift analysis and policy, paths and the
        // roots they must lie in. Pure Swift.
        .target(name: "DriftCore", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        // Traces: spans over swift-distributed-tracing's API, exported by OTLP/HTTP (protobuf) from a bounded batch.
        .target(
            name: "DriftTrace",
            dependencies: [
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Small utilities with no domain: FNV-1a hashing, rate-limited logging, crash injection for tests.
        .target(name: "DriftSupport", dependencies: ["CLinux", "CXXHash"]),
        // The report schema: what a scan and a run found, as the JSON and CSV columns.
        .target(
            name: "DriftSchema", dependencies: [.product(name: "SystemPackage", package: "swift-system"), "DriftCore"]),
        .target(
            name: "DriftAudio",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "DriftCore", "DriftSupport", "CSndFile",
                "CLinux", "CPCM",
            ]),
        // Compressed audio and audio inside video through FFmpeg's libraries (the only importer of CFFmpeg).
        .target(
            name: "DriftAV",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "DriftCore", "DriftSupport", "DriftAudio",
                "CFFmpeg",
            ]),
        // The polyphase resampler's inner loop: AVX2 and FMA chosen at run time, portable C elsewhere.
        .target(name: "CPolyphase"),
        // The phase vocoder's frame kernel: spectra through kissfft (BSD-3-Clause, libkissfft-dev from apt), phases by
        // phase-gradient heap integration.
        .target(name: "CSpectral", linkerSettings: [.linkedLibrary("kissfft-float")]),
        .target(
            name: "DriftDSP",
            dependencies: ["DriftCore", "DriftSupport", "CSampleRate", "CSoxr", "CPolyphase", "CSpectral"]
        ),
        // Content measurement: the recording correlated with the reference's own sound (offset, rate, dropouts).
        // Pure Swift on `AudioSource` streams; its FFT is its own.
        .target(name: "DriftSync", dependencies: ["DriftCore", "DriftSchema"]),
        // The scan's rules as values: how recordings pair with references, how a device is named, how pairing by sound
        // groups files. The configuration builds them; DriftMedia applies them to files.
        .target(name: "DriftRules", dependencies: ["DriftCore"]),
        // The YAML configuration file: parsed and validated into DriftCore's policy types and DriftRules' rules.
        .target(
            name: "DriftConfig",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "DriftCore", "DriftSchema", "DriftRules",
                .product(name: "Yams", package: "Yams"),
            ]),
        // One plan per pair (decision, operations, output), built once from the scan, the policy and the verdicts on
        // earlier outputs; the run's report with outcomes.
        .target(
            name: "DriftPlanning",
            dependencies: [.product(name: "SystemPackage", package: "swift-system"), "DriftCore", "DriftSchema"]),
        // Reference probing (MP4/MOV boxes, audio, sidecars), folder scanning and pairing, drift measurement.
        .target(
            name: "DriftMedia",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "DriftSchema", "DriftCore", "DriftAudio",
                "DriftAV", "DriftRules",
            ]),
        // Drift reports: table, JSON, CSV, self-contained HTML, and the night's Prometheus text file for node_exporter.
        .target(
            name: "DriftReports",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "DriftSchema", "DriftCore", "DriftSupport",
                "CZlib",
            ]),
        // Timelines for editors (OpenTimelineIO, FCPXML, CMX3600) from a pairing by sound: pure, exact times.
        .target(
            name: "DriftTimeline",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "DriftCore", "DriftSchema", "DriftSupport",
            ]),
        // Wire messages and their codec: pure, testable without sockets.
        .target(name: "DriftWire", dependencies: ["DriftCore", "DriftSchema"]),
        // ZeroMQ context, sockets and polling, CURVE keys and the ZAP handler (the only importer of CZMQ).
        .target(
            name: "DriftTransport",
            dependencies: [
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "DriftSupport", "CZMQ",
                "DriftCore", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The job-store vocabulary: a job, where it stands, the store protocol and its in-memory stores. Below both the
        // dispatcher and the journal that persists it.
        .target(name: "DriftJobs", dependencies: ["DriftCore", "DriftPlanning", "DriftSchema", "DriftWire"]),
        // Leases, heartbeats, retries, dispatch; the coordinator's socket loop; local worker processes.
        .target(
            name: "DriftCoordinator",
            dependencies: [
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "DriftSupport", "DriftCore",
                "DriftWire", "DriftTransport", "DriftJobs",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The worker loop and its job runner.
        .target(
            name: "DriftWorker",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "DriftSupport", "DriftCore",
                "DriftAudio", "DriftWire", "DriftTransport", "DriftRepair", "DriftSchema", "DriftSync", "CLinux",
                "DriftTrace", .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        // The durable run journal (SQLite through GRDB): job states written ahead, resume, incremental runs, drift
        // history, metrics.
        .target(
            name: "DriftJournal",
            dependencies: [
                "DriftPlanning", "DriftSupport", "DriftSchema", "DriftCore", "DriftWire", "DriftJobs",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // One file's repair (read, convert, write, verify, rename): used by `process` and by workers.
        .target(
            name: "DriftRepair",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"),
                "DriftSupport", "DriftCore", "DriftAudio", "DriftDSP", "DriftAV", "DriftSchema", "DriftSync",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        // Live metrics of a running coordinator or worker: Prometheus series fed by their events, and the HTTP
        // listener that serves them (/metrics, /healthz). DriftKit's `LiveMetrics` trait brings it in.
        .target(
            name: "DriftMetrics",
            dependencies: [
                "DriftCoordinator", "DriftCore", "DriftSchema", "DriftJobs", "DriftReports",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Workers as a Slurm job array: sbatch, squeue and scancel as child processes.
        .target(
            name: "DriftSlurm",
            dependencies: [
                "DriftCoordinator", "DriftTransport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Pairing by sound: the search that names, for each clip, the recording that heard it (prints grouped and
        // searched, places settled, takes ordered, a night's report made from the found pairs). The work it asks for
        // (prints, clip syncs) is a protocol the composition root answers with jobs.
        .target(
            name: "DriftSoundPairing",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"),
                "DriftAV", "DriftConfig", "DriftCore", "DriftMedia", "DriftRepair", "DriftRules", "DriftSchema",
                "DriftSupport", "DriftSync", .product(name: "Logging", package: "swift-log"),
            ]),
        // The composition root: one repair run (journal, plan, coordinator services, outcome, history, metrics) and
        // one worker, from settings to outcome; the command line and the benchmark both run through it.
        .target(
            name: "DriftKit",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"),
                "DriftAudio", "DriftAV", "DriftConfig", "DriftCoordinator", "DriftCore", "DriftJobs", "DriftJournal",
                "DriftMedia", "DriftRules",
                .target(name: "DriftMetrics", condition: .when(traits: ["LiveMetrics"])), "DriftRepair",
                "DriftPlanning", "DriftReports", "DriftSchema", "DriftSlurm", "DriftSoundPairing", "DriftSupport",
                "DriftSync",
                "DriftTimeline", "DriftTrace", "DriftTransport", "DriftWire",
                "DriftWorker",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "driftfix",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"),
                // The library alone, as any caller of it (check-imports.py); a member of a module it does not import
                // is refused (SE-0444), so nothing of the engine reaches the command line by a side door.
                "DriftKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // No package access: the engine's `package` members (the reports' JSON numbers behind their Durations,
            // ...) are out of its reach as they are out of any other caller's.
            packageAccess: false,
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")],
            // `driftfix --version` names the source revision it was built from.
            plugins: ["SourceRevision"]
        ),
        .plugin(name: "SourceRevision", capability: .buildTool()),
        // Generated scenes and independent measurements for the tests and the benchmark: ideal signals, recordings with
        // known offsets, rates and faults, shoots, chaos nights, a process runner. No project DSP inside: what they
        // compare against is computed on its own.
        .target(
            name: "DriftFixtures",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "DriftSchema", "DriftCore", "DriftAudio",
                "DriftJobs", "DriftWire", "CLinux",
            ]),
        .executableTarget(
            name: "DriftBench",
            dependencies: [
                "DriftPlanning", "DriftKit", "DriftSchema", "DriftAV", "DriftMedia", "DriftRepair",
                "DriftCore", "DriftAudio", "DriftDSP", "DriftSync", "DriftFixtures", "DriftCoordinator",
                "DriftTransport",
                "DriftJournal", "DriftJobs",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        .testTarget(
            name: "DriftCoreTests",
            dependencies: ["DriftCore", "DriftFixtures", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "DriftSlurmTests",
            dependencies: [
                "DriftSlurm", "DriftCoordinator", "DriftJobs", "DriftWire", "DriftFixtures",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "DriftMetricsTests",
            dependencies: [
                "DriftMetrics", "DriftCore", "DriftFixtures", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "DriftPlanningTests", dependencies: ["DriftPlanning", "DriftCore", "DriftSchema"]),
        .testTarget(
            name: "DriftKitTests",
            dependencies: [
                "DriftFixtures", .product(name: "Logging", package: "swift-log"), "DriftWorker", "DriftWire",
                "DriftSchema", "DriftPlanning", "DriftJournal", "DriftCore", "DriftCoordinator", "DriftConfig",
                "DriftAudio", "DriftKit", "DriftTransport", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "DriftConfigTests",
            dependencies: ["DriftConfig", "DriftCore", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "DriftMediaTests",
            dependencies: [
                "DriftMedia", "DriftAV", "DriftAudio", "DriftCore", "DriftRules", "DriftFixtures", "DriftWorker",
                "DriftSchema", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "DriftReportsTests", dependencies: ["DriftSchema", "DriftReports", "DriftCore", "DriftFixtures"]),
        .testTarget(name: "DriftSoundPairingTests", dependencies: ["DriftSoundPairing", "DriftCore", "DriftSchema"]),
        .testTarget(name: "DriftTimelineTests", dependencies: ["DriftTimeline", "DriftSchema", "DriftCore"]),
        .testTarget(name: "DriftWireTests", dependencies: ["DriftWire", "DriftCore", "DriftSchema"]),
        .testTarget(
            name: "DriftTraceTests",
            dependencies: [
                "DriftTrace", "DriftFixtures", .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]),
        .testTarget(
            name: "DriftJobsTests", dependencies: ["DriftJobs", "DriftCore", "DriftPlanning", "DriftWire"]),
        .testTarget(name: "DriftRulesTests", dependencies: ["DriftRules"]),
        .testTarget(name: "DriftAVTests", dependencies: ["DriftAV", "DriftCore", "DriftFixtures"]),
        .testTarget(
            name: "DriftSchemaTests",
            dependencies: ["DriftSchema", "DriftCore", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "DriftCoordinatorTests",
            dependencies: [
                "DriftTransport", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"), "DriftCoordinator", "DriftWire", "DriftCore",
                "DriftJobs", "DriftFixtures",
            ]),
        .testTarget(
            name: "DriftTransportTests",
            dependencies: [
                "DriftTransport", "DriftFixtures",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Seeded mutation fuzzing of the parsers that read untrusted bytes, bounded in time, plus the regression corpus.
        .testTarget(
            name: "FuzzTests",
            dependencies: [
                "DriftMedia", "DriftWire", "DriftConfig", "DriftAV", "DriftFixtures", "DriftAudio", "DriftCore",
                "DriftRepair", .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.copy("Corpus")]),
        .testTarget(
            name: "DriftJournalTests",
            dependencies: [
                "DriftPlanning", "DriftSchema", "DriftJournal", "DriftCoordinator", "DriftWire", "DriftAudio",
                "DriftCore", "DriftReports", "DriftFixtures", "DriftJobs", "DriftAV", "DriftSync",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "SystemPackage", package: "swift-system"),
            ],
            // The forms the journal stores as JSON, pinned (StoredFormTests reads them by path).
            exclude: ["StoredForms"]),
        .testTarget(
            name: "DriftWorkerTests",
            dependencies: ["DriftWorker", "DriftWire", "DriftAudio", "DriftCore", "DriftRepair", "DriftFixtures"]),
        // The end-to-end targets name the `driftfix` executable so that it is built before they run it.
        .testTarget(
            name: "DistributedTests",
            dependencies: [
                "DriftSchema", "driftfix", "DriftAudio", "DriftCore", "DriftTransport", "DriftWire",
                "DriftJournal", "DriftFixtures", .product(name: "Yams", package: "Yams"),
            ],
            exclude: ["Fixtures"]),
        // Counted benchmarks: allocations and peak memory per unit of work, checked against Thresholds/.
        .executableTarget(
            name: "DriftBenchmarks",
            dependencies: [
                "DriftCore", "DriftDSP", "DriftSync", "DriftMedia", "DriftRules", "DriftSchema", "DriftReports",
                "DriftCoordinator", "DriftJobs", "DriftWire", "DriftFixtures",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/DriftBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .testTarget(
            name: "DriftAudioTests",
            dependencies: ["DriftAudio", "DriftCore", "DriftFixtures", "DriftSupport", "CSndFile"]),
        .testTarget(name: "DriftSyncTests", dependencies: ["DriftSync", "DriftCore", "DriftFixtures"]),
        .testTarget(
            name: "DriftDSPTests", dependencies: ["DriftDSP", "DriftCore", "DriftFixtures", "CSampleRate", "CSoxr"]),
        .testTarget(
            name: "DriftRepairTests",
            dependencies: [
                "DriftRepair", "DriftAudio", "DriftCore", "DriftDSP", "DriftSupport", "DriftSync", "DriftFixtures",
            ]),
        // The library's public API as a caller sees it: `import DriftKit` alone (MemberImportVisibility on), with the
        // fixtures that generate media whose truths are known.
        .testTarget(
            name: "DriftKitAPITests",
            dependencies: [
                "DriftKit", "DriftFixtures", .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            packageAccess: false,
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]),
        .testTarget(name: "EndToEndTests", dependencies: ["driftfix", "DriftAudio", "DriftCore", "DriftFixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
