import Foundation
import GRDB
import Testing

@testable import DriftJournal

/// The v7 migration's SQL functions, frozen as v7 packed: against values worked out here (FNV-1a 64's published
/// vectors, a blob laid out by hand), and against a form v7 never packed (an `xxh3:` checksum stays text, though the
/// live packing makes it a blob now).
@Suite struct V7PackingTests {
    @Test("driftfix_hex, driftfix_print and driftfix_plan_digest as v7 made them")
    func frozenFunctions() throws {
        let db = try DatabaseQueue()
        try db.read { db in
            for function in V7Packing.functions { db.add(function: function) }
            #expect(try Int64.fetchOne(db, sql: "SELECT driftfix_hex('1f')") == 31)
            #expect(try Int64.fetchOne(db, sql: "SELECT driftfix_hex('ffffffffffffffff')") == -1)
            // Leading zeros, capitals and the later XXH3 form are not v7's canonical hex: kept as text.
            for text in ["01f", "1F", "xxh3:00000000000000ff"] {
                #expect(try String.fetchOne(db, sql: "SELECT typeof(driftfix_hex(?))", arguments: [text]) == "text")
            }
            // 10 bytes, modified at 20 ns, hash ff: three big-endian words.
            let blob = try Data.fetchOne(db, sql: "SELECT driftfix_print('10:20:ff')")
            #expect(blob == Data([0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0xFF]))
            #expect(try String.fetchOne(db, sql: "SELECT driftfix_print('10:020:ff')") == "10:020:ff")
            // FNV-1a 64: "" is the offset basis, "a" 0xaf63dc4c8601ec8c (the published test vectors).
            #expect(
                try Int64.fetchOne(db, sql: "SELECT driftfix_plan_digest('')")
                    == Int64(bitPattern: 0xcbf2_9ce4_8422_2325))
            #expect(
                try Int64.fetchOne(db, sql: "SELECT driftfix_plan_digest('a')")
                    == Int64(bitPattern: 0xaf63_dc4c_8601_ec8c))
            #expect(try Int64.fetchOne(db, sql: "SELECT driftfix_hex(NULL)") == nil)
        }
    }
}
