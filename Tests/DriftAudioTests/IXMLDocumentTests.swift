import Testing

@testable import DriftAudio

@Suite("iXML edited in place")
struct IXMLDocumentTests {
    static let text = """
        <?xml version="1.0" encoding="UTF-8"?>\r
        <!-- written by a recorder -->\r
        <BWFXML>\r
        \t<SCENE>12A</SCENE>\r
        \t<NOTE>boom &amp; lav</NOTE>\r
        \t<EMPTY/>\r
        \t<SPEED>\r
        \t\t<TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>480000</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\r
        \t</SPEED>\r
        \t<VENDOR a="x>y"><![CDATA[<raw>]]></VENDOR>\r
        </BWFXML>\r

        """

    @Test("values read and replaced; an element added where its siblings are; nothing else moves")
    func edits() throws {
        var document = try #require(IXMLDocument(Array((Self.text + "\0\0").utf8)))
        #expect(document.element(["SCENE"]).map { document.value(of: $0) } == "12A")
        #expect(document.element(["NOTE"]).map { document.value(of: $0) } == "boom & lav")
        let speed = try #require(document.element(["SPEED"]))
        document.set("TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO", to: "960000", in: speed)
        document.set("TIMESTAMP_SAMPLE_RATE", to: "48000", in: speed)
        document.insert("<HISTORY><PARENT_FILENAME>a&amp;b.wav</PARENT_FILENAME></HISTORY>", into: document.root)
        let edited = String(decoding: document.bytes, as: UTF8.self)
        let expected = Self.text
            .replacingOccurrences(of: ">480000<", with: ">960000<")
            .replacingOccurrences(
                of: "</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\r\n",
                with:
                    "</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\r\n\t\t<TIMESTAMP_SAMPLE_RATE>48000</TIMESTAMP_SAMPLE_RATE>\r\n"
            )
            .replacingOccurrences(
                of: "</VENDOR>",
                with: "</VENDOR>\r\n\t<HISTORY><PARENT_FILENAME>a&amp;b.wav</PARENT_FILENAME></HISTORY>")
        #expect(edited == expected + "\0\0", "the padding after the root is kept")
    }

    @Test("what is not markup it can follow is refused, never half-edited")
    func refusals() {
        #expect(IXMLDocument(Array("<BWFXML><SCENE>1</BWFXML>".utf8)) == nil)
        #expect(IXMLDocument(Array("<BWFXML><SCENE>1</SCENE>".utf8)) == nil)
        #expect(IXMLDocument([0xFF, 0xFE, 0x3C, 0x00]) == nil, "UTF-16 is carried as it is")
        #expect(IXMLDocument([]) == nil)
    }
}
