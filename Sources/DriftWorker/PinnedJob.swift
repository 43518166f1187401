import DriftCore
import Foundation

/// A job's files, checked and pinned beneath their roots before anything reads or writes them: each input resolved
/// inside the input roots and opened beneath its root, each output's folder opened (and made) beneath the output
/// root, and then used only through `/proc/self/fd/N` (see `PinnedPaths`). Every runner pins through this, so the
/// confinement rules, their order and the refusal messages are written once.
struct PinnedJob {
    /// Why the job's files cannot be used: one line naming the file, and its kind.
    struct Refusal: Error {
        let message: String
        let kind: FailureKind
    }

    /// The inputs as the pipeline opens them, in the order given.
    let inputs: [String]
    /// The outputs as the pipeline writes them (a temporary file in the pinned folder, renamed there).
    let outputs: [String]
    private let folders: [(descriptor: Int32, name: String)]
    private let descriptors: [Int32]
    /// Pinned text → the job's text, longest first (`/proc/self/fd/1` is a prefix of `/proc/self/fd/12`).
    private let names: [(pinned: String, shown: String)]

    /// Pins `inputs` (below `inputRoots`) and the folders of `outputs` (below `outputRoot`, which must not overlap an
    /// input root). Inputs are resolved before anything is opened, so a message names the first bad one.
    static func pin(inputs: [String], outputs: [String] = [], inputRoots: [String], outputRoot: String?)
        -> Result<PinnedJob, Refusal>
    {
        if let output = outputs.first {
            guard let outputRoot else {
                return .failure(Refusal(message: "\(output): refused: the job names no output root", kind: .refused))
            }
            if case .failure(let reason) = Confinement.checkRoots(inputs: inputRoots, output: outputRoot) {
                return .failure(Refusal(message: "\(output): refused: \(reason)", kind: .refused))
            }
        }
        var resolved: [String] = []
        for path in inputs {
            switch Confinement.check(input: path, roots: inputRoots) {
            case .failure(let reason): return .failure(Refusal(message: "\(path): refused: \(reason)", kind: .refused))
            case .success(let real): resolved.append(real)
            }
        }
        var opened: [Int32] = []
        func refuse(_ message: String, _ kind: FailureKind) -> Result<PinnedJob, Refusal> {
            for descriptor in opened { Glibc.close(descriptor) }
            return .failure(Refusal(message: message, kind: kind))
        }
        var names: [(String, String)] = []
        var pinnedInputs: [String] = []
        for (path, real) in zip(inputs, resolved) {
            switch PinnedPaths.pinInput(real, inputRoots: inputRoots) {
            case .failure(let reason): return refuse("\(path): refused: \(reason)", .refused)
            case .success(let descriptor):
                opened.append(descriptor)
                pinnedInputs.append("/proc/self/fd/\(descriptor)")
                names.append(("/proc/self/fd/\(descriptor)", path))
            }
        }
        var folders: [(Int32, String)] = []
        var pinnedOutputs: [String] = []
        for output in outputs {
            guard let outputRoot else { break }  // none when there are no outputs (checked above)
            if case .failure(let reason) = Confinement.check(output: output, root: outputRoot) {
                return refuse("\(output): \(reason)", .refused)
            }
            switch PinnedPaths.folder(of: output, beneath: outputRoot) {
            case .failure(let failure):
                let retryable = if case .output(_, true) = failure { true } else { false }
                return refuse("\(output): \(failure)", retryable ? .outputUnwritable : .refused)
            case .success(let folder):
                opened.append(folder)
                let name = (output as NSString).lastPathComponent
                folders.append((folder, name))
                pinnedOutputs.append("/proc/self/fd/\(folder)/\(name)")
                names.append(("/proc/self/fd/\(folder)/\(name)", output))
                names.append(("/proc/self/fd/\(folder)/", (output as NSString).deletingLastPathComponent + "/"))
            }
        }
        return .success(
            PinnedJob(
                inputs: pinnedInputs, outputs: pinnedOutputs, folders: folders, descriptors: opened,
                names: names.sorted { $0.0.count > $1.0.count }))
    }

    /// `text` with the descriptor paths replaced by the paths the job named, for messages and reports.
    func shown(_ text: String) -> String {
        names.reduce(text) { $0.replacingOccurrences(of: $1.pinned, with: $1.shown) }
    }

    /// XXH3 of output `index` as renamed into its pinned folder.
    func checksum(ofOutput index: Int = 0) -> String? {
        PinnedPaths.checksum(of: folders[index].name, in: folders[index].descriptor)
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}
