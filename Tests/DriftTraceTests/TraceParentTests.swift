import Testing

@testable import DriftTrace

@Suite("W3C trace context")
struct TraceParentTests {
    @Test("the specification's example parses to its fields and prints back the same")
    func example() throws {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let parent = try #require(TraceParent(header))
        #expect(parent.traceHigh == 0x4bf9_2f35_77b3_4da6 && parent.traceLow == 0xa3ce_929d_0e0e_4736)
        #expect(parent.spanID == 0x00f0_67aa_0ba9_02b7 && parent.sampled)
        #expect(parent.description == header)
        #expect(TraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled == false)
    }

    @Test("new traces and children: random non-zero ids that survive the header, children in the same trace")
    func roundTrip() throws {
        for _ in 0..<200 {
            let root = TraceParent.newTrace()
            let child = root.child()
            #expect(TraceParent(root.description) == root && TraceParent(child.description) == child)
            #expect(child.traceID == root.traceID && child.spanID != root.spanID && child.spanID != 0)
            #expect(root.description.count == 55)
        }
    }

    @Test(
        "headers that are not trace context are refused",
        arguments: [
            "", "00", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero span id
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // the forbidden version
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",  // version 00 has four fields
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
            "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ])
    func refused(_ header: String) {
        #expect(TraceParent(header) == nil, "\(header)")
    }

    @Test("a later version is read by its first four fields")
    func laterVersion() {
        let parent = TraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-later")
        #expect(parent?.spanID == 0x00f0_67aa_0ba9_02b7)
    }
}
