import DriftAudio

/// The temporary files of outputs not yet verified, which a signal must not leave behind.
public enum PendingOutputs {
    /// Removes them before the process dies of a signal; `terminating`: SIGINT, SIGTERM and SIGHUP too, for a
    /// command without a graceful stop of its own (`process`).
    public static func removeOnSignals(terminating: Bool) {
        StagedOutput.removeOnSignals(terminating: terminating)
    }

    /// Removes them now (a second signal: quit without waiting for running jobs).
    public static func removeAll() {
        StagedOutput.removeAllPending()
    }
}
