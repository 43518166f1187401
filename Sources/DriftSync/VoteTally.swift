/// One lookup's votes: each a place (a bin of offsets in one recording) and the clip onset that cast it, gathered in
/// the order cast and then sorted by place, so that each place's count is of distinct onsets.
///
/// Sorting beats counting in place: a thousand hours hold 3.6 million places, and a vote written to a random one of
/// them missed the cache every time (two thirds of a lookup, measured); two or three stable passes of 11 bits each
/// walk memory in order.
struct VoteTally: Sendable {
    /// Bits of a vote that hold its voter (a clip onset's ordinal; a clip of more than 16 million onsets would have
    /// two onsets share one, and at worst count one vote too few).
    private static let voterBits = 24
    private static let digitBits = 11

    private var votes: [UInt64] = []
    private var spare: [UInt64] = []
    /// The places with votes, ascending, and each one's number of distinct voters.
    private(set) var places: [Int] = []
    private(set) var counts: [Int] = []

    mutating func reset() {
        votes.removeAll(keepingCapacity: true)
        places.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
    }

    /// Voters must be cast in ascending order.
    @inline(__always) mutating func add(place: Int, voter: Int) {
        votes.append(UInt64(place) << Self.voterBits | UInt64(voter & (1 << Self.voterBits - 1)))
    }

    /// Sorts the votes by place (fewer than 2^`placeBits` places) and counts each place's voters.
    mutating func tally(placeBits: Int) {
        let n = votes.count
        guard n > 0 else { return }
        if spare.count < n { spare = [UInt64](repeating: 0, count: n) }
        var histogram = [Int](repeating: 0, count: 1 << Self.digitBits)
        var sortedInSpare = false
        votes.withUnsafeMutableBufferPointer { a in
            spare.withUnsafeMutableBufferPointer { b in
                var from = a
                var to = b
                var shift = Self.voterBits
                while shift < Self.voterBits + placeBits {
                    Self.pass(from, to, count: n, shift: shift, histogram: &histogram)
                    swap(&from, &to)
                    sortedInSpare.toggle()
                    shift += Self.digitBits
                }
            }
        }
        if sortedInSpare { swap(&votes, &spare) }
        countRuns(n)
    }

    /// One stable counting-sort pass on the digit at `shift`.
    private static func pass(
        _ from: UnsafeMutableBufferPointer<UInt64>, _ to: UnsafeMutableBufferPointer<UInt64>, count n: Int,
        shift: Int, histogram: inout [Int]
    ) {
        let mask = UInt64(1 << digitBits - 1)
        histogram.withUnsafeMutableBufferPointer { h in
            for d in h.indices { h[d] = 0 }
            for i in 0..<n { h[Int((from[i] >> UInt64(shift)) & mask)] += 1 }
            var sum = 0
            for d in h.indices {
                let c = h[d]
                h[d] = sum
                sum += c
            }
            for i in 0..<n {
                let v = from[i]
                let d = Int((v >> UInt64(shift)) & mask)
                to[h[d]] = v
                h[d] += 1
            }
        }
    }

    private mutating func countRuns(_ n: Int) {
        let voterMask = UInt64(1 << Self.voterBits - 1)
        var i = 0
        while i < n {
            let place = votes[i] >> UInt64(Self.voterBits)
            var voters = 0
            var last = UInt64.max
            while i < n, votes[i] >> UInt64(Self.voterBits) == place {
                let voter = votes[i] & voterMask
                if voter != last {
                    voters += 1
                    last = voter
                }
                i += 1
            }
            places.append(Int(place))
            counts.append(voters)
        }
    }
}
