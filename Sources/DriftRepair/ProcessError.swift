import DriftCore

public import struct SystemPackage.FilePath

/// A failure of one file's repair: one line naming the file and the cause.
public struct ProcessError: Error, CustomStringConvertible {
    /// The file concerned.
    public let path: FilePath
    public let cause: String
    /// The request's values that do not fit this file, when that is the cause.
    public let plan: PlanError?

    public init(path: FilePath, cause: String) {
        self.path = path
        self.cause = cause
        plan = nil
    }

    public init(path: FilePath, plan: PlanError) {
        self.path = path
        cause = plan.description
        self.plan = plan
    }

    /// The file named by its `PathText` (how a request carries it).
    package init(path text: String, cause: String) {
        self.init(path: FilePath(pathText: text), cause: cause)
    }

    package init(path text: String, plan: PlanError) {
        self.init(path: FilePath(pathText: text), plan: plan)
    }

    /// The written output, named by its `PathText`, did not verify: `mismatches` say how.
    package static func unverified(_ path: String, _ mismatches: [String]) -> ProcessError {
        var error = ProcessError(path: path, cause: "verification failed: " + mismatches.joined(separator: "; "))
        error.isVerification = true
        return error
    }

    /// Whether the output was written and did not verify (rather than the input or the plan failing).
    public private(set) var isVerification = false

    public var description: String { "\(path.pathText): \(cause)" }
}
