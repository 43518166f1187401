import DriftAudio
import DriftCore
import DriftFixtures
import DriftRules
import Foundation
import Testing

@testable import DriftMedia

private let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite("Device identity: which recorder a file came from")
struct DeviceRulesTests {
    private func name(_ sources: [DeviceSource], _ relative: String, metadata: RecordingMetadata? = nil)
        -> DeviceIdentity
    {
        DeviceRules(sources: sources).identify(
            recording: "/media/fleet/" + relative, root: "/media/fleet", metadata: metadata)
    }

    @Test(
        "path templates: folders counted from the root or from the file; out of range falls through to the next source")
    func pathTemplates() throws {
        #expect(name([.path("{1}")], "dev007/night3/take2.wav") == DeviceIdentity(name: "dev007", source: "path {1}"))
        #expect(name([.path("{2}")], "2026-11-23/camB/take2.wav").name == "camB")
        #expect(name([.path("{-1}")], "site/dev7/take2.wav").name == "dev7")
        #expect(name([.path("{1}-{-1}")], "site/x/dev7/take2.wav").name == "site-dev7")
        #expect(name([.path("{stem}")], "a/dev9.wav").name == "dev9")
        // {3} does not exist in a two-folder path: the next source names it.
        #expect(name([.path("{3}"), .path("{1}")], "a/b/t.wav") == DeviceIdentity(name: "a", source: "path {1}"))
        #expect(throws: DevicePatternError.self) { try DeviceSource.checkedPath("{0}") }
        #expect(throws: DevicePatternError.self) { try DeviceSource.checkedPath("{x}") }
        #expect(throws: DevicePatternError.self) { try DeviceSource.checkedPath("plain") }
    }

    @Test("patterns with named captures over the relative path: DEVICE_take.wav, DATE/DEVICE, a name built of captures")
    func patterns() throws {
        let prefix = try DevicePattern(#"(?<device>[^/_]+)_[^/]*$"#)
        #expect(name([.pattern(prefix)], "REC12_take3.wav").name == "REC12")
        #expect(name([.pattern(prefix)], "night1/REC12_take3.wav").name == "REC12")
        let built = try DevicePattern(#"^(?<site>[^/]+)/\d{8}/(?<unit>[^/]+)/"#, name: "{site}:{unit}")
        #expect(
            name([.pattern(built)], "berlin/20261123/u4/t.wav")
                == DeviceIdentity(name: "berlin:u4", source: "pattern " + built.expression))
        // No match: the folder.
        #expect(name([.pattern(built)], "loose/t.wav") == DeviceIdentity(name: "loose", source: "folder"))
        #expect(throws: DevicePatternError.self) { try DevicePattern("(unclosed") }
        #expect(throws: DevicePatternError.self) { try DevicePattern("(?<unit>x)") }  // no device capture, no name
        #expect(throws: DevicePatternError.self) { try DevicePattern("(?<unit>x)", name: "{site}") }
        #expect(throws: Never.self) { try DevicePattern("(?<=a)(?<unit>x)", name: "{unit}") }
    }

    @Test(
        "the default folder leaves out dates and nights, whichever level they are at",
        arguments: [
            ("dev003/night4/take1.wav", "dev003"), ("2026-11-23/camB/take1.wav", "camB"),
            ("camB/20261123/t.wav", "camB"),
            ("site/Day-2/unit5/t.wav", "site/unit5"), ("site/run_12/t.wav", "site"), ("23.11.2026/t.wav", "fleet"),
            ("t.wav", "fleet"), ("2026-11-23T0130/recorder/t.wav", "recorder"), ("nightshift/t.wav", "nightshift"),
        ])
    func folderDefault(relative: String, expected: String) {
        #expect(name([], relative) == DeviceIdentity(name: expected, source: "folder"))
    }

    @Test("metadata words parse, and each field is read from what a recorder writes")
    func metadataFields() throws {
        for word in [
            "bwf-originator", "bwf-originator-reference", "bwf-description", "bwf-description:sTAPE", "ixml:TAPE",
            "ixml:USER/SERIAL", "quicktime", "encoder",
        ] {
            #expect(DeviceMetadataField(label: word)?.label == word)
        }
        for word in ["ixml", "ixml:", "bwf-originator:x", "make", "ixml:<A>"] {
            #expect(DeviceMetadataField(label: word) == nil)
        }

        let bext = RecordingMetadata(
            originator: "Sound Devices", originatorReference: "USSDVN9AB12",
            bextDescription: "sSPEED=025.000-ND\r\nsTAPE=DAY04\r\nsUNIT=MixPre-6 #2\r\n")
        #expect(DeviceMetadataField.bwfOriginator.value(in: bext) == "Sound Devices")
        #expect(DeviceMetadataField.bwfOriginatorReference.value(in: bext) == "USSDVN9AB12")
        #expect(DeviceMetadataField.bwfDescription(key: "sUNIT").value(in: bext) == "MixPre-6 #2")
        #expect(DeviceMetadataField.bwfDescription(key: "sNONE").value(in: bext) == nil)

        let xml = """
            <?xml version="1.0" encoding="UTF-8"?><BWFXML><IXML_VERSION>2.10</IXML_VERSION><!-- note -->
            <TRACK_LIST><TRACK><NAME>Boom</NAME></TRACK></TRACK_LIST><NAME>recorder &amp; co</NAME>
            <USER><SERIAL> F8N-000123 </SERIAL></USER><TAPE/></BWFXML>
            """
        let ixml = RecordingMetadata(ixml: xml)
        #expect(DeviceMetadataField.ixml(path: ["USER", "SERIAL"]).value(in: ixml) == "F8N-000123")
        // The root's own NAME, not the track's nested one.
        #expect(DeviceMetadataField.ixml(path: ["NAME"]).value(in: ixml) == "recorder & co")
        #expect(DeviceMetadataField.ixml(path: ["TAPE"]).value(in: ixml) == nil)
        #expect(
            DeviceMetadataField.ixml(path: ["TRACK_LIST"]).value(in: ixml) == nil, "an element of elements is no name")

        let quicktime = RecordingMetadata(tags: [
            "com.apple.quicktime.make": "Apple", "com.apple.quicktime.model": "iPhone 15 Pro", "encoder": "Lavf59",
        ])
        #expect(DeviceMetadataField.quicktime.value(in: quicktime) == "Apple iPhone 15 Pro")
        #expect(
            DeviceMetadataField.quicktime.value(
                in: RecordingMetadata(tags: ["make": "Canon", "model": "Canon EOS R5"])) == "Canon EOS R5")
        #expect(DeviceMetadataField.encoder.value(in: quicktime) == "Lavf59")

        // First source that names something wins; an empty field falls through.
        let sources: [DeviceSource] = [.metadata(.bwfOriginatorReference), .metadata(.quicktime), .path("{1}")]
        #expect(
            name(sources, "a/t.wav", metadata: quicktime)
                == DeviceIdentity(name: "Apple iPhone 15 Pro", source: "quicktime"))
        #expect(
            name(sources, "a/t.wav", metadata: RecordingMetadata(originatorReference: "  "))
                == DeviceIdentity(name: "a", source: "path {1}"))
        #expect(name(sources, "a/t.wav", metadata: nil).name == "a")
    }

    @Test(
        "from real files: BWF originator and description, iXML, and the encoder tag through libsndfile; the path when the file says nothing"
    )
    func realWAVFiles() throws {
        let root = TemporaryFolder()
        let signal = TestSignal(channelCount: 1, length: 4800)
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        try FileManager.default.createDirectory(atPath: root.file("card1"), withIntermediateDirectories: true)
        // bext through the project's writer...
        let bext = BroadcastInfo(
            description: "sTAPE=D4\r\nsUNIT=cart-2\r\n", originator: "ZOOM F8n", originatorReference: "F8N-4471")
        try writeRecording(
            signal, to: root.file("card1/bwf.wav"), format: format, metadata: AudioMetadata(broadcastInfo: bext))
        // ... and an iXML chunk and an ISFT tag in bytes made here, independently of any writer.
        let xml = Array("<BWFXML><USER><SERIAL>MP6-0099</SERIAL></USER></BWFXML>".utf8)
        let info = WaveBytes.chunk(
            "LIST", Array("INFO".utf8) + WaveBytes.chunk("ISFT", Array("FieldRec 3.1\u{0}".utf8)))
        try Data(
            WaveBytes.file(channels: 1, audio: WaveBytes.pcm16(signal), after: WaveBytes.chunk("iXML", xml) + info)
        )
        .write(to: URL(fileURLWithPath: root.file("card1/ixml.wav")))
        try writeRecording(signal, to: root.file("card1/plain.wav"), format: format)

        func identify(_ file: String, _ sources: [DeviceSource]) throws -> DeviceIdentity {
            let rules = DeviceRules(sources: sources)
            let measured = try RecordingProbe.measure(
                root.file(file), metadata: rules.readsMetadata, ixml: rules.readsIXML)
            return rules.identify(recording: root.file(file), root: root.path, metadata: measured.metadata)
        }
        #expect(
            try identify("card1/bwf.wav", [.metadata(.bwfOriginator)])
                == DeviceIdentity(name: "ZOOM F8n", source: "bwf-originator"))
        #expect(try identify("card1/bwf.wav", [.metadata(.bwfOriginatorReference)]).name == "F8N-4471")
        #expect(try identify("card1/bwf.wav", [.metadata(.bwfDescription(key: "sUNIT"))]).name == "cart-2")
        #expect(
            try identify("card1/ixml.wav", [.metadata(.ixml(path: ["USER", "SERIAL"]))])
                == DeviceIdentity(name: "MP6-0099", source: "ixml:USER/SERIAL"))
        #expect(
            try identify("card1/ixml.wav", [.metadata(.encoder)])
                == DeviceIdentity(name: "FieldRec 3.1", source: "encoder"))
        #expect(
            try identify("card1/plain.wav", [.metadata(.bwfOriginator), .metadata(.ixml(path: ["TAPE"]))])
                == DeviceIdentity(name: "card1", source: "folder"))
    }

    @Test(
        "from real files: QuickTime make and model, in both the keys and the udta form ffmpeg writes, through FFmpeg",
        .enabled(if: ffmpeg != nil, "ffmpeg not installed"))
    func quickTimeFiles() throws {
        let root = TemporaryFolder()
        let tool = try #require(ffmpeg)
        func make(_ name: String, _ extra: [String]) throws {
            _ = try runTool(
                tool,
                [
                    "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5:sample_rate=48000",
                    "-f", "lavfi", "-i", "color=c=gray:s=64x48:r=25:d=0.5", "-shortest", "-c:a", "aac",
                    "-c:v", "mpeg4",
                ] + extra + [root.file(name)])
        }
        try make(
            "keys.mov",
            [
                "-movflags", "use_metadata_tags", "-metadata", "com.apple.quicktime.make=Apple",
                "-metadata", "com.apple.quicktime.model=iPhone 15 Pro",
            ])
        try make("udta.mov", ["-metadata", "make=GoPro", "-metadata", "model=HERO12 Black"])
        for (file, expected) in [("keys.mov", "Apple iPhone 15 Pro"), ("udta.mov", "GoPro HERO12 Black")] {
            let rules = DeviceRules(sources: [.metadata(.quicktime)])
            let measured = try RecordingProbe.measure(root.file(file), metadata: true)
            #expect(
                rules.identify(recording: root.file(file), root: root.path, metadata: measured.metadata)
                    == DeviceIdentity(name: expected, source: "quicktime"), "\(file): \(measured.metadata?.tags ?? [:])"
            )
        }
    }

    @Test("the scan names every row's device, with its source, in the order the config gives")
    func scanRows() throws {
        let root = TemporaryFolder()
        let format = AudioFormat(container: .wav, encoding: .pcm16, sampleRate: 48_000, channelCount: 1)
        for (index, folder) in ["dev1/night0", "dev1/night1", "dev2/night1"].enumerated() {
            try FileManager.default.createDirectory(atPath: root.file(folder), withIntermediateDirectories: true)
            let bext =
                index == 2 ? AudioMetadata(broadcastInfo: BroadcastInfo(originatorReference: "SN-2")) : AudioMetadata()
            try writeRecording(
                TestSignal(channelCount: 1, length: 4800), to: root.file("\(folder)/t.wav"), format: format,
                metadata: bext)
            try "4800@48000\n".write(toFile: root.file("\(folder)/t.duration"), atomically: true, encoding: .utf8)
        }
        var rules = PairingRules()
        rules.device = DeviceRules(sources: [.metadata(.bwfOriginatorReference), .path("{1}")])
        let report = DriftScanner.scan(roots: [root.path], rules: rules)
        let devices = Dictionary(
            uniqueKeysWithValues: report.pairs.map {
                ($0.recordingText.dropFirst(root.path.count + 1), "\($0.device) (\($0.deviceSource))")
            })
        #expect(
            devices == [
                "dev1/night0/t.wav": "dev1 (path {1})", "dev1/night1/t.wav": "dev1 (path {1})",
                "dev2/night1/t.wav": "SN-2 (bwf-originator-reference)",
            ])
        let folders = DriftScanner.scan(roots: [root.path], rules: PairingRules())
        #expect(Set(folders.pairs.map(\.device)) == ["dev1", "dev2"], "the default leaves the nights out")
    }
}
