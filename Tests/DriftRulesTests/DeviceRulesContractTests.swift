import DriftRules
import Testing

/// How a recording's device is named from its path, and which configurations are refused before a scan starts.
@Suite("Device rules: patterns, templates and metadata fields")
struct DeviceRulesContractTests {
    @Test("a pattern names the device by its capture or its template; no match, or an empty capture, names none")
    func patterns() throws {
        let plain = try DevicePattern(#"(?<device>ZOOM[0-9]+)/"#)
        #expect(plain.device(in: "site/ZOOM0042/take.wav") == "ZOOM0042")
        #expect(plain.device(in: "site/take.wav") == nil)
        let templated = try DevicePattern(#"^(?<site>[^/]+)/(?<unit>[^/]*)/"#, name: "{site}-{unit}")
        #expect(templated.device(in: "north/r7/take.wav") == "north-r7")
        #expect(templated.device(in: "north//take.wav") == nil, "an empty capture names nothing")
    }

    @Test(
        "a pattern that cannot name a device is refused with its reason",
        arguments: [
            (#"(?<device>"#, nil, "not a regular expression"),
            (#"ZOOM[0-9]+"#, nil, "no capture named 'device'"),
            (#"(?<=x)(?<unit>y)"#, nil, "no capture named 'device'"),
            (#"(?<=x)(?<unit>y)"#, "{device}", "the name uses {device}"),
            (#"(?<unit>y)"#, "{site}", "the name uses {site}"),
            (#"(?<unit>y)"#, "fixed", "uses no capture"),
        ] as [(String, String?, String)])
    func refusedPatterns(expression: String, name: String?, reason: String) {
        #expect {
            _ = try DevicePattern(expression, name: name)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("path templates: folders counted from the root or from the file, the stem; a missing folder names none")
    func templates() throws {
        #expect(DeviceRules.path("{1}-{-1}", relativePath: "day1/recorderA/take.wav") == "day1-recorderA")
        #expect(DeviceRules.path("{stem}", relativePath: "a/T0012.WAV") == "T0012")
        #expect(DeviceRules.path("{3}", relativePath: "a/b.wav") == nil)
        #expect(DeviceRules.relativePath("/media/a/b.wav", root: "/media/") == "a/b.wav")
        #expect(DeviceRules.relativePath("/other/b.wav", root: "/media") == "/other/b.wav")
        #expect(throws: DevicePatternError.self) { try DeviceSource.checkedPath("recorder") }
        #expect(throws: DevicePatternError.self) { try DeviceSource.checkedPath("{0}") }
        #expect(try DeviceSource.checkedPath("{-2}/{stem}") == .path("{-2}/{stem}"))
    }

    @Test("metadata fields read back from their labels; malformed ones are refused")
    func metadataLabels() {
        let fields: [DeviceMetadataField] = [
            .bwfOriginator, .bwfOriginatorReference, .bwfDescription(key: nil), .bwfDescription(key: "sTAPE"),
            .ixml(path: ["USER", "SERIAL"]), .quicktime, .encoder,
        ]
        for field in fields { #expect(DeviceMetadataField(label: field.label) == field, "\(field.label)") }
        for bad in ["ixml:", "ixml:A//B", "ixml:<x>", "encoder:x", "exif", ""] {
            #expect(DeviceMetadataField(label: bad) == nil, "\(bad)")
        }
        #expect(DeviceRules(sources: [.metadata(.ixml(path: ["TAPE"]))]).readsMetadata)
        #expect(!DeviceRules().readsMetadata)
    }
}
