import DriftFixtures
import Testing

@testable import DriftSync

/// The lookup's vote tally against a count made the plain way: each place's distinct voters.
@Suite struct VoteTallyTests {
    @Test(
        "places up to 2^8, 2^20 and 2^30 (one to three sorting passes), voters repeating at a place: each place's distinct voters",
        arguments: [8, 20, 30])
    func countsDistinctVoters(placeBits: Int) {
        var random = SplitMix64(seed: UInt64(placeBits))
        var tally = VoteTally()
        for round in 0..<2 {
            tally.reset()
            var truth: [Int: Set<Int>] = [:]
            // Voters in ascending order, each voting 1 to 40 times, often at a place it voted at already.
            for voter in 0..<3000 {
                var mine: [Int] = []
                for _ in 0..<(1 + Int(random.next() % 40)) {
                    let place =
                        !mine.isEmpty && random.next() % 3 == 0
                        ? mine[Int(random.next() % UInt64(mine.count))]
                        : Int(random.next() % (1 << UInt64(placeBits)))
                    mine.append(place)
                    tally.add(place: place, voter: voter)
                    truth[place, default: []].insert(voter)
                }
            }
            tally.tally(placeBits: placeBits)
            let expected = truth.keys.sorted()
            #expect(tally.places == expected, "round \(round)")
            #expect(tally.counts == expected.map { truth[$0]?.count ?? 0 }, "round \(round)")
        }
    }
}

/// The lookup's budget: a clip whose hashes would meet more landmarks than searching every recording costs is
/// searched for everywhere (the lookup names nothing, it says nil), and the answer is the same.
@Suite struct LookupBudgetTests {
    @Test("onsets at random every few frames: over a small budget the lookup gives up, within it the clip is named")
    func givesUpOverItsBudget() {
        var random = SplitMix64(seed: 12)
        let recordings = (0..<3).map { _ in
            SoundPrint(
                onsets: (0..<36_000).map { _ in random.next() % 7 == 0 ? UInt8(random.next() % 200) : 0 },
                seconds: 360)
        }
        let clip = SoundPrint(onsets: Array(recordings[1].onsets[9000..<15000]), seconds: 60)
        let generous = SoundIndex(recordings: recordings, budgetPerHour: SoundIndex.lookupBudgetPerHour)
        #expect(generous.nominate(clip)?.recordings.first == 1)
        let tight = SoundIndex(recordings: recordings, budgetPerHour: 10)
        #expect(
            tight.nominate(clip) == nil, "its buckets hold more than twice its budget (250): searched for everywhere")
        let indexed = SoundMatcher(recordings: recordings, index: tight).candidates(for: clip)
        let every = SoundMatcher(recordings: recordings, indexed: false).candidates(for: clip)
        #expect(indexed == every && indexed.first?.recording == 1)
    }
}
