import DriftFixtures
import Foundation
import Logging
import Testing

@testable import DriftSlurm

/// What the pool hands `sbatch`: the submitting environment as it is, and a script that starts the worker with its
/// log level.
@Suite("Slurm: the submission")
struct SlurmSubmissionTests {
    @Test(
        "the tasks take the submitting environment (--export=ALL, no list: a list makes Slurm run a login shell first), the script sets the workers' log level"
    )
    func submission() throws {
        let folder = TemporaryFolder()
        // A stand-in worker: prints the level it was given and its arguments.
        let worker = folder.file("worker.sh")
        try "#!/bin/sh\necho \"$DRIFTFIX_LOG_LEVEL $*\"\n".write(toFile: worker, atomically: true, encoding: .utf8)
        chmod(worker, 0o755)
        var settings = SlurmWorkerPool.Settings(
            count: 2, endpoint: "tcp://10.0.0.1:5555", executable: worker, extraArguments: ["--heartbeat", "0.5"])
        settings.sbatchArguments = ["--partition=night"]
        let pool = try SlurmWorkerPool(settings: settings, logger: Logger(label: "test"))

        let arguments = pool.submission([0, 1])
        #expect(arguments.filter { $0.hasPrefix("--export") } == ["--export=ALL"], "\(arguments)")
        #expect(arguments.contains("--array=0,1") && arguments.last == "--partition=night", "\(arguments)")

        let script = folder.file("batch.sh")
        try pool.script.write(toFile: script, atomically: true, encoding: .utf8)
        // The level the coordinator was told to give its workers, over whatever the task's environment says.
        let level = ProcessInfo.processInfo.environment["DRIFTFIX_WORKER_LOG_LEVEL"] ?? "notice"
        let run = try runChild("/bin/sh", [script], environment: ["DRIFTFIX_LOG_LEVEL": "debug"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(level) worker --connect tcp://10.0.0.1:5555 --heartbeat 0.5\n")
    }
}
