import DriftAV
import DriftAudio
import DriftCore
import DriftRules
import DriftSchema
import Foundation

import struct SystemPackage.FilePath

/// A recording paired with its reference, and what QA should know about the pairing.
public struct PairCandidate: Sendable, Equatable {
    public var recording: String
    public var reference: String
    /// Notes on the pairing (another reference was passed over, ...).
    public var warnings: [String] = []
    /// Set when the pair must not be measured until the configuration decides (ambiguous references with
    /// `scan.ambiguous-references: refuse`).
    public var refusal: String?
    /// The scan root the recording was found under (devices are named from the path below it).
    public var root: String?
}

/// The files found under the roots, paired: the scan's first half (no audio is opened here).
public struct ScanInventory: Sendable {
    public var pairs: [PairCandidate] = []
    public var unpaired: [UnpairedFile] = []
    public var issues: [ScanIssue] = []
    public var skipped: [SkippedPath] = []
}

/// Walks folders and pairs recordings with references by the rules.
///
/// Hidden files and folders (a leading dot, which includes driftfix's own temporary files), editor and download
/// leftovers (`~`, `.tmp`, `.part`) and ignored paths are skipped.
///
/// Symbolic links to folders follow one rule: every folder is scanned once, under its own path when that path lies
/// inside the roots. A link whose target lies inside a root is therefore skipped - its files are scanned under the
/// target's own path - and listed as skipped with the target named; this includes a link to one of its own
/// ancestors (a loop). A link (to a folder or a file) that leads outside every root is skipped and listed in the
/// words a worker refuses it with (`PathRoots`): the plan and the night apply one rule, so nothing is planned that
/// the night would refuse. A link given as a root is followed.
/// An unreadable folder or a broken link is an issue in the report; the walk goes on.
public enum FolderScanner {
    static let temporarySuffixes = ["~", ".tmp", ".temp", ".part", ".partial", ".crdownload", ".download"]

    public static func scan(roots: [String], rules: PairingRules) -> ScanInventory {
        var inventory = ScanInventory()
        var walker = Walker(rules: rules, roots: PathRoots(roots))
        for root in roots {
            var info = stat()
            guard PathText.withCString(root, { stat($0, &info) }) == 0 else {
                inventory.issues.append(ScanIssue(path: root, error: "root: \(String(cString: strerror(errno)))"))
                continue
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                inventory.issues.append(ScanIssue(path: root, error: "root is not a folder"))
                continue
            }
            let start = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
            walker.walk(from: start, into: &inventory)
        }
        // A pattern may reach into another folder (`../video/{stem}.mp4`): that reference is not unpaired.
        let referenced = Set(inventory.pairs.map(\.reference))
        inventory.unpaired.removeAll { $0.kind == .reference && referenced.contains($0.pathText) }
        return inventory
    }

    struct FolderID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private struct Walker {
        let rules: PairingRules
        let roots: PathRoots
        /// Folders walked, with the path they were walked under.
        var visited: [FolderID: String] = [:]

        mutating func walk(from root: String, into inventory: inout ScanInventory) {
            var stack = [root]
            while let folder = stack.popLast() {
                var info = stat()
                guard PathText.withCString(folder, { stat($0, &info) }) == 0 else { continue }
                let id = FolderID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
                if let first = visited[id] {
                    // Only roots can get here twice (links are checked before they are pushed).
                    if folder != first {
                        inventory.skipped.append(SkippedPath(path: folder, reason: "already scanned as \(first)"))
                    }
                    continue
                }
                visited[id] = folder
                guard let listing = list(folder, into: &inventory) else { continue }
                for sub in listing.folders.reversed() { stack.append(sub) }
                let first = inventory.pairs.count
                FolderScanner.pair(
                    folder: folder, files: listing.files, special: listing.special, rules: rules, into: &inventory)
                for index in first..<inventory.pairs.count { inventory.pairs[index].root = root }
            }
        }

        /// The regular files and the sub-folders to walk of `folder`, skipping hidden, temporary and ignored names
        /// and links the rule above leaves out; every other kind of file (FIFO, socket, device, dangling link) is
        /// listed as skipped, never opened, and returned by name with its kind for the pairing's reasons.
        mutating func list(_ folder: String, into inventory: inout ScanInventory) -> (
            files: [String], folders: [String], special: [String: SkippedPath.Kind]
        )? {
            guard let directory = PathText.withCString(folder, { opendir($0) }) else {
                inventory.issues.append(
                    ScanIssue(path: folder, error: "unreadable folder: \(String(cString: strerror(errno)))"))
                return nil
            }
            defer { closedir(directory) }
            var files: [String] = []
            var folders: [String] = []
            var links: [(path: String, target: String)] = []
            var special: [String: SkippedPath.Kind] = [:]
            func skip(_ name: String, _ path: String, _ kind: SkippedPath.Kind, throughLink: Bool) {
                special[name] = kind
                inventory.skipped.append(.special(path: path, kind: kind, throughLink: throughLink))
            }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    PathText.text(raw.prefix { $0 != 0 })
                }
                if name.hasPrefix(".") || FolderScanner.temporarySuffixes.contains(where: { name.hasSuffix($0) }) {
                    continue
                }
                let path = folder == "/" ? "/" + name : folder + "/" + name
                if rules.ignore.contains(where: { $0.matches(pathText: path) }) { continue }
                var kind = Int32(entry.pointee.d_type)
                let viaLink = kind == Int32(DT_LNK)
                if kind == Int32(DT_LNK) || kind == Int32(DT_UNKNOWN) {
                    var info = stat()
                    guard PathText.withCString(path, { stat($0, &info) }) == 0 else {
                        if viaLink {
                            special[name] = .danglingLink
                            let target = FilePath(pathText: path).linkTarget().map(\.pathText) ?? "?"
                            inventory.skipped.append(.dangling(path: path, target: target))
                        }
                        continue
                    }
                    kind = Self.entryType(info.st_mode)
                }
                if let other = Self.specialKind(kind) {
                    skip(name, path, other, throughLink: viaLink)
                    continue
                }
                if viaLink, let reason = roots.outsideReason(FilePath(pathText: path)) {
                    inventory.skipped.append(SkippedPath(path: path, reason: "symbolic link \(reason)"))
                    continue
                }
                if kind == Int32(DT_DIR) {
                    if viaLink, let target = FilePath(pathText: path).realPath()?.pathText {
                        links.append((path, target))
                    } else {
                        folders.append(path)
                    }
                } else if kind == Int32(DT_REG) {
                    files.append(name)
                }
            }
            for (path, target) in links.sorted(by: { $0.path < $1.path }) {
                if let reason = skipReason(link: path, target: target) {
                    inventory.skipped.append(SkippedPath(path: path, reason: reason))
                } else {
                    folders.append(path)
                }
            }
            files.sort()
            folders.sort()
            return (files, folders, special)
        }

        /// A `d_type` for a stat mode.
        static func entryType(_ mode: mode_t) -> Int32 {
            switch mode & S_IFMT {
            case S_IFDIR: Int32(DT_DIR)
            case S_IFREG: Int32(DT_REG)
            case S_IFIFO: Int32(DT_FIFO)
            case S_IFSOCK: Int32(DT_SOCK)
            case S_IFCHR: Int32(DT_CHR)
            case S_IFBLK: Int32(DT_BLK)
            default: Int32(DT_UNKNOWN)
            }
        }

        /// The kind of a file that is neither a folder nor a regular file; nil for those.
        static func specialKind(_ type: Int32) -> SkippedPath.Kind? {
            switch type {
            case Int32(DT_FIFO): .fifo
            case Int32(DT_SOCK): .socket
            case Int32(DT_CHR): .characterDevice
            case Int32(DT_BLK): .blockDevice
            default: nil
            }
        }

        /// Why a link to the folder `target` (inside the roots: the caller has refused the others) is not followed,
        /// or nil to follow it.
        func skipReason(link: String, target: String) -> String? {
            let real = FilePath(pathText: target)
            guard let root = roots.root(holding: real) else { return nil }
            if FilePath(pathText: link).removingLastComponent().resolvingLinks().isInside(real) {
                return "symbolic link loop: points to its own ancestor \(target)"
            }
            let hidden = real.relative(to: root)?.components.contains { $0.string.hasPrefix(".") } ?? false
            if hidden || rules.ignore.contains(where: { $0.matches(pathText: target) }) {
                return "symbolic link to \(target), a hidden or ignored folder, which is not scanned"
            }
            return "symbolic link to \(target), which is scanned under its own path"
        }
    }

    /// Pairs the files of one folder: patterns first, then same stem with a reference extension.
    /// - Parameter special: the folder's files that are not regular ones, by name: a partner that is one is named
    ///   in the unpaired file's reason.
    static func pair(
        folder: String, files: [String], special: [String: SkippedPath.Kind] = [:], rules: PairingRules,
        into inventory: inout ScanInventory
    ) {
        var pairing = FolderPairing(folder: folder, files: files, special: special, rules: rules)
        pairing.pairByPatterns(into: &inventory)
        pairing.pairByStems(into: &inventory)
        pairing.listUnpairedReferences(into: &inventory)
    }

    /// One folder's pairing as it goes: its files, the rules, and the files already used.
    private struct FolderPairing {
        let folder: String
        let files: [String]
        let names: Set<String>
        let special: [String: SkippedPath.Kind]
        let rules: PairingRules
        let recordingExts: Set<String>
        let referenceExts: [String]
        var used = Set<String>()

        init(folder: String, files: [String], special: [String: SkippedPath.Kind], rules: PairingRules) {
            self.folder = folder
            self.files = files
            names = Set(files)
            self.special = special
            self.rules = rules
            recordingExts = Set(rules.recordingExtensions.map { $0.lowercased() })
            referenceExts = rules.referenceExtensions.map { $0.lowercased() }
        }

        func path(_ name: String) -> String { folder + "/" + name }

        /// Why a file has no partner: none by its name, or the one it would have is not a regular file.
        func noPartner(_ name: String, partner: String, extensions: Set<String>) -> String {
            let stem = FilePath.stem(ofName: name)
            let skipped = special.filter { other, _ in
                (FilePath.stem(ofName: other)) == stem
                    && extensions.contains(FilePath.lowercasedExtension(of: other) ?? "")
            }.min { $0.key < $1.key }
            guard let (other, kind) = skipped else { return "no \(partner) with the same name" }
            return "its \(partner) \(other) is \(kind.words), not a regular file (skipped)"
        }

        func rank(_ name: String) -> Int? {
            referenceExts.firstIndex(of: (FilePath.lowercasedExtension(of: name) ?? ""))
        }

        mutating func pairByPatterns(into inventory: inout ScanInventory) {
            for pattern in rules.patterns {
                for name in files where !used.contains(name) {
                    guard let stem = pattern.stem(of: name) else { continue }
                    let reference = pattern.reference(for: stem)
                    let exists =
                        reference.contains("/")
                        ? FilePath(pathText: path(reference)).exists : names.contains(reference)
                    guard exists, reference != name else { continue }
                    inventory.pairs.append(
                        PairCandidate(
                            recording: path(name), reference: FilePath(path(reference)).lexicallyNormalized().string))
                    used.insert(name)
                    if !reference.contains("/") { used.insert(reference) }
                }
            }
        }

        /// Each recording with the reference of its stem: the most preferred where there are several, which the
        /// pair is warned of, or refused for.
        mutating func pairByStems(into inventory: inout ScanInventory) {
            // Every reference of each stem, most preferred first (ties, such as take.MOV beside take.mov, by name).
            var referencesByStem: [String: [String]] = [:]
            for name in files where !used.contains(name) {
                guard rank(name) != nil else { continue }
                referencesByStem[(FilePath.stem(ofName: name)), default: []].append(name)
            }
            for stem in referencesByStem.keys {
                referencesByStem[stem]?.sort { (rank($0) ?? 0, $0) < (rank($1) ?? 0, $1) }
            }
            var pairedReferences = Set<String>()
            for name in files
            where !used.contains(name) && recordingExts.contains((FilePath.lowercasedExtension(of: name) ?? "")) {
                let stem = (FilePath.stem(ofName: name))
                guard let candidates = referencesByStem[stem], let chosen = candidates.first else {
                    inventory.unpaired.append(
                        UnpairedFile(
                            path: path(name), kind: .recording,
                            reason: noPartner(name, partner: "reference", extensions: Set(referenceExts))))
                    continue
                }
                var pair = PairCandidate(recording: path(name), reference: path(chosen))
                if candidates.count > 1 {
                    let others = candidates.dropFirst().joined(separator: ", ")
                    let order = referenceExts.joined(separator: ", ")
                    switch rules.ambiguousReferences {
                    case .prefer:
                        pair.warnings.append(
                            "\(candidates.count) references for one recording: \(chosen) chosen over \(others) (scan.references order: \(order))"
                        )
                    case .refuse:
                        pair.refusal =
                            "\(candidates.count) references for one recording (\(candidates.joined(separator: ", "))): refused until the configuration chooses (scan.references order, or scan.ambiguous-references: prefer)"
                    }
                }
                inventory.pairs.append(pair)
                used.insert(name)
                pairedReferences.formUnion(candidates)
            }
            used.formUnion(pairedReferences)
        }

        /// The references left: a video with its own audio track is paired with itself, the others listed unpaired.
        func listUnpairedReferences(into inventory: inout ScanInventory) {
            for name in files
            where !used.contains(name) && referenceExts.contains((FilePath.lowercasedExtension(of: name) ?? "")) {
                // A video with its own audio track and no separate recording: the track is measured against its
                // picture.
                if rules.selfPairs, name.lowercased().hasSuffix("." + ReferenceProbe.sidecarExtension) == false,
                    let info = try? MediaProbe.probe(path(name)), !info.videoStreams.isEmpty,
                    !info.audioStreams.isEmpty
                {
                    inventory.pairs.append(PairCandidate(recording: path(name), reference: path(name)))
                    continue
                }
                inventory.unpaired.append(
                    UnpairedFile(
                        path: path(name), kind: .reference,
                        reason: noPartner(name, partner: "recording", extensions: recordingExts)))
            }
        }
    }
}
