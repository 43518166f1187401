import Foundation

/// A seeded byte-level mutator in the manner of libFuzzer's: bit flips, interesting values, big-endian length
/// fields set to edge values (box sizes, counts), truncation, duplication, insertion and splicing of seeds.
/// Deterministic for a seed, so a failure reproduces with DRIFTFIX_FUZZ_SEED.
struct Mutator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        // xorshift64*
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }

    static let interesting32: [UInt32] = [
        0, 1, 7, 8, 9, 16, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000,
        0xFFFF_FFFE, 0xFFFF_FFFF,
    ]
    static let interesting8: [UInt8] = [
        0, 1, 0x7F, 0x80, 0xFF, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x2C, 0x0A, 0x23, 0x2D,
    ]

    /// One to four stacked mutations of `input`.
    mutating func mutate(_ input: [UInt8], seeds: [[UInt8]]) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) {
            if bytes.isEmpty { bytes = seeds[below(seeds.count)] }
            let at = below(bytes.count)
            switch below(10) {
            case 0: bytes[at] ^= UInt8(1) << UInt8(below(8))
            case 1: bytes[at] = Self.interesting8[below(Self.interesting8.count)]
            case 2:
                // A 32-bit big-endian field (box size, count, timescale, ...) set to an edge value or near the length.
                guard bytes.count >= 4 else { continue }
                let position = below(bytes.count - 3)
                let value =
                    below(3) == 0
                    ? UInt32(truncatingIfNeeded: bytes.count - position + below(17) - 8)
                    : Self.interesting32[below(Self.interesting32.count)]
                for k in 0..<4 { bytes[position + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(k))) }
            case 3: bytes.removeSubrange(at...)  // truncate
            case 4:
                let end = min(bytes.count, at + 1 + below(64))
                bytes.removeSubrange(at..<end)
            case 5:
                let end = min(bytes.count, at + 1 + below(256))
                bytes.insert(contentsOf: bytes[at..<end], at: below(bytes.count))  // duplicate a chunk
            case 6: bytes.insert(contentsOf: (0..<1 + below(8)).map { _ in UInt8(truncatingIfNeeded: next()) }, at: at)
            case 7:
                let other = seeds[below(seeds.count)]
                guard !other.isEmpty else { continue }
                let from = below(other.count)
                bytes = Array(bytes[..<at]) + other[from..<min(other.count, from + 1 + below(512))]  // splice
            case 8: bytes[at] = UInt8(truncatingIfNeeded: next())
            default:
                // Repeat one byte many times (deep nesting, long tokens).
                bytes.insert(contentsOf: [UInt8](repeating: bytes[at], count: 1 + below(2048)), at: at)
            }
        }
        return bytes
    }
}

/// Runs `body` over mutated inputs for a bounded time and number of iterations. Each input is first written to
/// `/tmp/driftfix-fuzz-NAME.last`, so if `body` crashes the process, the input that did it is on disk (add it to
/// Tests/FuzzTests/Corpus/NAME/ once fixed).
struct FuzzRun {
    let name: String
    let seeds: [[UInt8]]
    var seconds = Double(ProcessInfo.processInfo.environment["DRIFTFIX_FUZZ_SECONDS"] ?? "") ?? 4
    var maxIterations = 200_000
    var seed = UInt64(ProcessInfo.processInfo.environment["DRIFTFIX_FUZZ_SEED"] ?? "") ?? 0xD21F_7F1C
    /// A structure-aware mutation used for half of the inputs (bytes that stay well-formed reach deeper checks).
    var structured: ((inout Mutator, [UInt8]) -> [UInt8])?

    struct Outcome {
        var iterations = 0
        var slowest = 0.0
        var slowestInput: [UInt8] = []
        var rssGrowthKiB = 0
        /// Inputs the parser accepted: a fuzzer whose every input dies at the first byte tests nothing.
        var accepted = 0
    }

    func run(_ body: ([UInt8]) -> Bool) -> Outcome {
        var mutator = Mutator(seed: seed)
        let last = FileManager.default.temporaryDirectory.path + "/driftfix-fuzz-\(name).last"
        let descriptor = open(last, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(descriptor) }
        var outcome = Outcome()
        let rssBefore = Self.peakRSSKiB()
        // Bounded by this thread's processor time, not the clock: on a loaded machine the run gets as many inputs
        // and each input the same bound (a wall-clock cap of ten times ends a run that is starved outright).
        let budget = Self.threadSeconds() + seconds
        let wallDeadline = Date().addingTimeInterval(seconds * 10)
        var current = seeds[0]
        while outcome.iterations < maxIterations && Self.threadSeconds() < budget && Date() < wallDeadline {
            // Mostly mutate a seed; sometimes keep mutating the previous input (deeper changes).
            let base = mutator.below(4) == 0 ? current : seeds[mutator.below(seeds.count)]
            if let structured, mutator.below(2) == 0 {
                current = structured(&mutator, base)
            } else {
                current = mutator.mutate(base, seeds: seeds)
            }
            if current.count > 1 << 20 { current = Array(current.prefix(1 << 20)) }
            _ = ftruncate(descriptor, 0)
            _ = current.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            let start = Self.threadSeconds()
            if body(current) { outcome.accepted += 1 }
            let took = Self.threadSeconds() - start
            if took > outcome.slowest {
                outcome.slowest = took
                outcome.slowestInput = current
            }
            outcome.iterations += 1
        }
        outcome.rssGrowthKiB = Self.peakRSSKiB() - rssBefore
        return outcome
    }

    /// Processor time this thread has used, seconds (the parsers run on the calling thread).
    static func threadSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
