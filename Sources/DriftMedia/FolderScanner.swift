import DriftCore
import Foundation

/// The files found under the roots, paired: the scan's first half (no audio is opened here).
public struct ScanInventory: Sendable {
    public var pairs: [(recording: String, reference: String)] = []
    public var unpaired: [UnpairedFile] = []
    public var issues: [ScanIssue] = []
}

/// Walks folders and pairs recordings with references by the rules.
///
/// Hidden files and folders (a leading dot, which includes driftfix's own temporary files), editor and download
/// leftovers (`~`, `.tmp`, `.part`) and ignored paths are skipped. Symlinked folders are followed once: a folder
/// reached again (a loop, or two links to one place) is reported, not walked twice. An unreadable folder is an issue
/// in the report; the walk goes on.
public enum FolderScanner {
    static let temporarySuffixes = ["~", ".tmp", ".temp", ".part", ".partial", ".crdownload", ".download"]

    public static func scan(roots: [String], rules: PairingRules) -> ScanInventory {
        var inventory = ScanInventory()
        var visited = Set<FolderID>()
        for root in roots {
            var info = stat()
            guard stat(root, &info) == 0 else {
                inventory.issues.append(ScanIssue(path: root, error: "root: \(String(cString: strerror(errno)))"))
                continue
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                inventory.issues.append(ScanIssue(path: root, error: "root is not a folder"))
                continue
            }
            var stack = [(path: root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root, viaLink: false)]
            while let (folder, viaLink) = stack.popLast() {
                var folderInfo = stat()
                guard stat(folder, &folderInfo) == 0 else { continue }
                let id = FolderID(device: UInt64(folderInfo.st_dev), inode: UInt64(folderInfo.st_ino))
                guard visited.insert(id).inserted else {
                    if viaLink { inventory.issues.append(ScanIssue(path: folder, error: "symlink to a folder already scanned (loop or duplicate); skipped")) }
                    continue
                }
                guard let listing = list(folder, rules: rules, issues: &inventory.issues) else { continue }
                for sub in listing.folders.reversed() { stack.append(sub) }
                pair(folder: folder, files: listing.files, rules: rules, into: &inventory)
            }
        }
        // A pattern may reach into another folder (`../video/{stem}.mp4`): that reference is not unpaired.
        let referenced = Set(inventory.pairs.map(\.reference))
        inventory.unpaired.removeAll { $0.kind == .reference && referenced.contains($0.path) }
        return inventory
    }

    struct FolderID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// The regular files and sub-folders of `folder`, skipping hidden, temporary and ignored names.
    static func list(_ folder: String, rules: PairingRules, issues: inout [ScanIssue])
        -> (files: [String], folders: [(path: String, viaLink: Bool)])?
    {
        guard let directory = opendir(folder) else {
            issues.append(ScanIssue(path: folder, error: "unreadable folder: \(String(cString: strerror(errno)))"))
            return nil
        }
        defer { closedir(directory) }
        var files: [String] = []
        var folders: [(String, Bool)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") || temporarySuffixes.contains(where: { name.hasSuffix($0) }) { continue }
            let path = folder == "/" ? "/" + name : folder + "/" + name
            if rules.ignore.contains(where: { $0.matches(path) }) { continue }
            var kind = Int32(entry.pointee.d_type)
            let viaLink = kind == Int32(DT_LNK)
            if kind == Int32(DT_LNK) || kind == Int32(DT_UNKNOWN) {
                var info = stat()
                guard stat(path, &info) == 0 else {
                    if viaLink { issues.append(ScanIssue(path: path, error: "broken symbolic link")) }
                    continue
                }
                kind = (info.st_mode & S_IFMT) == S_IFDIR ? Int32(DT_DIR) : (info.st_mode & S_IFMT) == S_IFREG ? Int32(DT_REG) : 0
            }
            if kind == Int32(DT_DIR) {
                folders.append((path, viaLink))
            } else if kind == Int32(DT_REG) {
                files.append(name)
            }
        }
        files.sort()
        folders.sort { $0.0 < $1.0 }
        return (files, folders)
    }

    /// Pairs the files of one folder: patterns first, then same stem with a reference extension.
    static func pair(folder: String, files: [String], rules: PairingRules, into inventory: inout ScanInventory) {
        let names = Set(files)
        var used = Set<String>()
        let recordingExts = Set(rules.recordingExtensions.map { $0.lowercased() })
        let referenceExts = rules.referenceExtensions.map { $0.lowercased() }
        func path(_ name: String) -> String { folder + "/" + name }

        for pattern in rules.patterns {
            for name in files where !used.contains(name) {
                guard let stem = pattern.stem(of: name) else { continue }
                let reference = pattern.reference(for: stem)
                let exists = reference.contains("/")
                    ? FileManager.default.fileExists(atPath: path(reference)) : names.contains(reference)
                guard exists, reference != name else { continue }
                inventory.pairs.append((path(name), (path(reference) as NSString).standardizingPath))
                used.insert(name)
                if !reference.contains("/") { used.insert(reference) }
            }
        }

        var referencesByStem: [String: String] = [:]
        for name in files where !used.contains(name) {
            let ext = (name as NSString).pathExtension.lowercased()
            guard let rank = referenceExts.firstIndex(of: ext) else { continue }
            let stem = (name as NSString).deletingPathExtension
            if let current = referencesByStem[stem],
               let currentRank = referenceExts.firstIndex(of: (current as NSString).pathExtension.lowercased()),
               currentRank <= rank { continue }
            referencesByStem[stem] = name
        }
        var pairedReferences = Set<String>()
        for name in files where !used.contains(name) && recordingExts.contains((name as NSString).pathExtension.lowercased()) {
            let stem = (name as NSString).deletingPathExtension
            if let reference = referencesByStem[stem] {
                inventory.pairs.append((path(name), path(reference)))
                used.insert(name)
                pairedReferences.insert(reference)
            } else {
                inventory.unpaired.append(UnpairedFile(path: path(name), kind: .recording, reason: "no reference with the same name"))
            }
        }
        used.formUnion(pairedReferences)
        for name in files where !used.contains(name) && referenceExts.contains((name as NSString).pathExtension.lowercased()) {
            inventory.unpaired.append(UnpairedFile(path: path(name), kind: .reference, reason: "no recording with the same name"))
        }
    }
}
