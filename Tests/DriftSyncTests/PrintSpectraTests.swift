import Testing

@testable import DriftSync

/// The search's arithmetic against the plain definitions: correlations summed in the time domain, peaks picked by
/// scanning every value.
@Suite struct PrintSpectraTests {
    struct Random {
        var state: UInt64
        mutating func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24) - 0.5
        }
    }

    /// r[m] = Σ x[i]·y[i + m], m from −(x.count − 1) to y.count − 1.
    static func correlation(_ x: [Float], _ y: [Float], at m: Int) -> Double {
        var sum = 0.0
        for i in x.indices where i + m >= 0 && i + m < y.count { sum += Double(x[i]) * Double(y[i + m]) }
        return sum
    }

    @Test("onsets and pitch classes correlated on half spectra, two signals a transform, both out of one inverse")
    func correlationsMatchTheSums() {
        var random = Random(state: 7)
        let clip = (0..<37).map { _ in random.next() }
        let recording = (0..<90).map { _ in random.next() }
        // Five "classes" (an odd count: the last one alone in its transform).
        let clipClasses = (0..<5).map { _ in (0..<30).map { _ in random.next() } }
        let recordingClasses = (0..<5).map { _ in (0..<85).map { _ in random.next() } }
        let size = SoundMatcher.transformSize(clip.count + recording.count)
        #expect(size == 128)
        let fft = FFT(size: size)
        let onsets = PrintSpectra.product(
            [(PrintSpectra.spectrum(of: clip, fft: fft), PrintSpectra.spectrum(of: recording, fft: fft))],
            bins: size / 2 + 1)
        let classes = PrintSpectra.product(
            Array(
                zip(
                    PrintSpectra.spectra(of: clipClasses, fft: fft),
                    PrintSpectra.spectra(of: recordingClasses, fft: fft))
            ), bins: size / 2 + 1)
        let (r, h) = PrintSpectra.inverse(onsets, classes, fft: fft)
        let alone = PrintSpectra.inverse(onsets, nil, fft: fft)
        #expect(alone.1 == nil)
        for m in -(clip.count - 1)..<recording.count {
            let at = (m % size + size) % size
            let expected = Self.correlation(clip, recording, at: m)
            #expect(abs(Double(r[at]) / Double(size) - expected) < 1e-3, "onsets at \(m)")
            #expect(abs(Double(alone.0[at]) / Double(size) - expected) < 1e-3, "onsets alone at \(m)")
            let summed = zip(clipClasses, recordingClasses).map { Self.correlation($0, $1, at: m) }.reduce(0, +)
            #expect(abs(Double(h?[at] ?? .nan) / Double(size) - summed) < 1e-3, "classes at \(m)")
        }
    }

    /// The places as the plain scan finds them: each peak the highest value (the first of equals) outside the lobes
    /// of the earlier ones, the rest's mean and deviation outside all of them, each place's ambiguity from the best
    /// value outside its own lobe.
    static func plainPlaces(_ values: [Double], lobe: Int, floor: Double, most: Int) -> [(Int, Double, Double, Int)] {
        let scanned = max(1, min(16, values.count / (4 * (2 * lobe + 1))))
        var excluded = [Bool](repeating: false, count: values.count)
        func span(of index: Int) -> ClosedRange<Int> { max(0, index - lobe)...min(values.count - 1, index + lobe) }
        var peaks: [Int] = []
        while peaks.count < scanned {
            var best = -1
            for i in values.indices where !excluded[i] && (best < 0 || values[i] > values[best]) { best = i }
            guard best >= 0, values[best] > 0 else { break }
            peaks.append(best)
            for i in span(of: best) { excluded[i] = true }
        }
        guard let first = peaks.first else { return [] }
        let rest = values.indices.filter { !excluded[$0] }.map { values[$0] }
        guard rest.count > 1 else { return [] }
        let mean = rest.reduce(0, +) / Double(rest.count)
        let deviation = max((rest.map { $0 * $0 }.reduce(0, +) / Double(rest.count) - mean * mean).squareRoot(), 1e-12)
        let height = values[first] - mean
        func rivals(_ v: Double) -> Bool { height > 0 && v - mean >= SoundMatcher.repetition * height }
        var places = peaks.filter { $0 == first || (values[$0] - mean) / deviation >= floor || rivals(values[$0]) }
        var outside = [Bool](repeating: false, count: values.count)
        for index in places { for i in span(of: index) { outside[i] = true } }
        // Runs of rival heights outside the places: each run's highest (first of equals) is a place where it is a
        // peak, else one more rival.
        var more = 0
        var i = 0
        while i < values.count {
            guard !outside[i], rivals(values[i]) else {
                i += 1
                continue
            }
            var end = i
            while end + 1 < values.count, !outside[end + 1], rivals(values[end + 1]) { end += 1 }
            let top = (i...end).max { (values[$0], -$0) < (values[$1], -$1) } ?? i
            let left = top == 0 || values[top - 1] <= values[top]
            let right = top == values.count - 1 || values[top + 1] <= values[top]
            if left && right { places.append(top) } else { more += 1 }
            i = end + 1
        }
        places =
            [first] + places.dropFirst().sorted { values[$0] > values[$1] || (values[$0] == values[$1] && $0 < $1) }
        return places.prefix(most).map { index in
            let own = span(of: index)
            let best = values.indices.filter { !own.contains($0) }.map { values[$0] }.max() ?? -.infinity
            let h = values[index]
            return (
                index, (h - mean) / deviation, h > mean ? max(0, (best - mean) / (h - mean)) : 1, places.count + more
            )
        }
    }

    @Test("a sound heard twice in a recording too short to scan more than one peak: both are places")
    func repeatInAShortRecording() {
        // 200 offsets with 2 s lobes scan one peak; the second copy, as high, 70 offsets later, is listed too.
        var random = Random(state: 7)
        var values = (0..<200).map { _ in Double(random.next()) + 0.5 }
        values[50] = 9
        values[120] = 8.9
        let places = SoundMatcher.places(values, lobe: 20, floor: 7, most: 4)
        #expect(places.map(\.index) == [50, 120])
        #expect(places.allSatisfy { $0.count == 2 })
        #expect(SoundMatcher.repeats(places, floor: 7))
        // Its shoulder is not a place: a broad peak whose values beyond the lobe still stand high.
        var broad = (0..<200).map { _ in Double(random.next()) + 0.5 }
        for i in 30...80 { broad[i] = 9 - abs(Double(i - 50)) * 0.05 }
        #expect(SoundMatcher.places(broad, lobe: 20, floor: 7, most: 4).map(\.index) == [50])
    }

    @Test("places picked by blocks are the plain scan's: noise, planted repeats, ties, plateaus, short arrays")
    func placesMatchThePlainScan() {
        var random = Random(state: 99)
        var cases: [(values: [Double], lobe: Int)] = []
        for trial in 0..<60 {
            let count = [5, 40, 300, 2_000, 7_331][trial % 5]
            let lobe = [1, 2, 20, 7][trial % 4]
            var values = (0..<count).map { _ in Double(random.next()) + 0.5 }
            // Planted peaks, some as high as each other (a loop), some on one value twice (ties).
            for p in 0..<(trial % 6) {
                let at = Int((Double(random.next()) + 0.5) * Double(count - 1))
                values[at] = p % 2 == 0 ? 9 : 6 + Double(p)
            }
            if trial % 7 == 0 { for i in 0..<min(count, 3 * lobe) { values[i] = 9 } }  // a plateau
            if trial % 11 == 0 { values = values.map { $0 - 0.9 } }  // mostly negative: the scan stops early
            cases.append((values, lobe))
        }
        for (n, test) in cases.enumerated() {
            let fast = SoundMatcher.places(test.values, lobe: test.lobe, floor: 7, most: 4)
            let plain = Self.plainPlaces(test.values, lobe: test.lobe, floor: 7, most: 4)
            #expect(fast.count == plain.count, "case \(n)")
            for (a, b) in zip(fast, plain) {
                #expect(a.index == b.0 && a.count == b.3, "case \(n)")
                #expect(abs(a.clarity - b.1) < 1e-9 && abs(a.ambiguity - b.2) < 1e-9, "case \(n)")
            }
        }
    }
}
