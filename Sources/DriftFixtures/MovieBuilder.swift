import Foundation

/// Builds MP4/MOV files box by box for tests: every header field is written here, independently of the parser.
public struct Box {
    public var type: String
    public var payload: [UInt8]
    public var children: [Box]
    /// Write a 64-bit `largesize` header even when 32 bits would do.
    public var large: Bool

    public init(_ type: String, _ payload: [UInt8] = [], children: [Box] = [], large: Bool = false) {
        self.type = type
        self.payload = payload
        self.children = children
        self.large = large
    }

    public var bytes: [UInt8] {
        let body = payload + children.flatMap(\.bytes)
        if large {
            return be32(1) + Array(type.utf8) + be64(UInt64(body.count + 16)) + body
        }
        return be32(UInt32(body.count + 8)) + Array(type.utf8) + body
    }
}

public func be32(_ v: UInt32) -> [UInt8] {
    [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
}
public func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }

/// Common boxes.
public enum Boxes {
    /// The smallest movie a reference probe reads: `ftyp`, then `moov` with a 1/1000 s movie header of `milliseconds`
    /// and one 25 fps video track of the same length (`milliseconds` a multiple of 40).
    public static func movie(milliseconds: UInt64) -> [UInt8] {
        precondition(milliseconds % 40 == 0, "a whole number of 25 fps frames")
        return ftyp().bytes
            + Box(
                "moov",
                children: [
                    mvhd(timescale: 1000, duration: milliseconds),
                    track(id: 1, handler: "vide", timescale: 25, duration: milliseconds / 40),
                ]
            ).bytes
    }

    public static func ftyp(_ brand: String = "isom") -> Box {
        Box("ftyp", Array(brand.utf8) + be32(0x200) + Array("isomiso2mp41".utf8))
    }

    /// `mvhd` or `mdhd` style header (version 0: 32-bit times, 1: 64-bit).
    static func timed(_ type: String, version: UInt8, timescale: UInt32, duration: UInt64, extra: Int) -> Box {
        var p: [UInt8] = [version, 0, 0, 0]
        if version == 1 {
            p += be64(0) + be64(0) + be32(timescale) + be64(duration)
        } else {
            p += be32(0) + be32(0) + be32(timescale) + be32(UInt32(duration))
        }
        return Box(type, p + [UInt8](repeating: 0, count: extra))
    }

    public static func mvhd(timescale: UInt32, duration: UInt64, version: UInt8 = 0) -> Box {
        timed("mvhd", version: version, timescale: timescale, duration: duration, extra: 80)
    }

    public static func mdhd(timescale: UInt32, duration: UInt64, version: UInt8 = 0) -> Box {
        timed("mdhd", version: version, timescale: timescale, duration: duration, extra: 4)
    }

    public static func tkhd(id: UInt32, version: UInt8 = 0) -> Box {
        var p: [UInt8] = [version, 0, 0, 7]
        p += version == 1 ? be64(0) + be64(0) : be32(0) + be32(0)
        p += be32(id) + be32(0) + (version == 1 ? be64(0) : be32(0))
        return Box("tkhd", p + [UInt8](repeating: 0, count: 60))
    }

    public static func hdlr(_ handler: String) -> Box {
        Box("hdlr", [0, 0, 0, 0] + be32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 12) + [0])
    }

    /// `elst` entries: (segment duration in movie ticks, media time; -1 = empty edit).
    public static func elst(_ entries: [(UInt64, Int64)], version: UInt8 = 0) -> Box {
        var p: [UInt8] = [version, 0, 0, 0] + be32(UInt32(entries.count))
        for (duration, time) in entries {
            if version == 1 {
                p += be64(duration) + be64(UInt64(bitPattern: time)) + be32(0x0001_0000)
            } else {
                p += be32(UInt32(duration)) + be32(UInt32(bitPattern: Int32(time))) + be32(0x0001_0000)
            }
        }
        return Box("elst", p)
    }

    public static func track(
        id: UInt32, handler: String, timescale: UInt32, duration: UInt64, edits: [(UInt64, Int64)]? = nil,
        version: UInt8 = 0
    ) -> Box {
        var children = [tkhd(id: id, version: version)]
        if let edits { children.append(Box("edts", children: [elst(edits, version: version)])) }
        children.append(
            Box(
                "mdia",
                children: [
                    mdhd(timescale: timescale, duration: duration, version: version), hdlr(handler),
                    Box(
                        "minf",
                        children: [
                            Box("hdlr", [0, 0, 0, 0] + be32(0) + Array("alis".utf8) + [UInt8](repeating: 0, count: 13))
                        ]),
                ]))
        return Box("trak", children: children)
    }

    public static func mdat(_ size: Int) -> Box { Box("mdat", [UInt8](repeating: 0xAB, count: size)) }

    public static func trex(track: UInt32, defaultDuration: UInt32) -> Box {
        Box("trex", [0, 0, 0, 0] + be32(track) + be32(1) + be32(defaultDuration) + be32(0) + be32(0))
    }

    public static func mehd(_ duration: UInt64, version: UInt8 = 0) -> Box {
        Box("mehd", [version, 0, 0, 0] + (version == 1 ? be64(duration) : be32(UInt32(duration))))
    }

    /// A fragment for `track` with explicit per-sample durations (or `count` samples at the default duration).
    public static func moof(
        track: UInt32, sampleDurations: [UInt32]? = nil, count: UInt32 = 0, defaultDuration: UInt32? = nil
    ) -> Box {
        var tfhdFlags: UInt32 = 0x02_0000
        var tfhd = be32(track)
        if let defaultDuration {
            tfhdFlags |= 0x08
            tfhd += be32(defaultDuration)
        }
        let trun: Box
        if let durations = sampleDurations {
            trun = Box(
                "trun",
                be32(0x000301) + be32(UInt32(durations.count)) + be32(0) + durations.flatMap { be32($0) + be32(100) })
        } else {
            trun = Box("trun", be32(0x000001) + be32(count) + be32(0))
        }
        return Box(
            "moof",
            children: [
                Box("mfhd", [0, 0, 0, 0] + be32(1)),
                Box("traf", children: [Box("tfhd", be32(tfhdFlags) + tfhd), trun]),
            ])
    }
}
