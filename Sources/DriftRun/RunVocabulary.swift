import DriftAudio
import DriftCoordinator
import DriftJobs
import DriftJournal
import DriftMetrics
import DriftRepair
import DriftSupport
import DriftTimeline
import DriftTransport
import DriftWorker

// The types of the engine's modules that a front end names: the settings it fills, the events it shows and the
// errors it words. With these, a front end (the `driftfix` executable) imports DriftRun and the vocabulary modules
// (Core, Schema, Config, Rules, Reports) and no engine module; scripts/check-imports.py holds it to that. The types
// stay where they are defined, so the engine's modules do not depend on the run.

/// How a coordinator binds or a worker connects: plaintext on a private socket, or CURVE with key files.
public typealias TransportPolicy = DriftTransport.TransportPolicy
/// Why a transport policy was refused.
public typealias TransportPolicyError = DriftTransport.TransportPolicyError
/// A ZeroMQ endpoint's text and scheme.
public typealias Endpoint = DriftTransport.Endpoint
/// A CURVE key pair, and the files that hold one.
public typealias CurveKeyPair = DriftTransport.CurveKeyPair
public typealias CurveKeyFile = DriftTransport.CurveKeyFile
/// A worker's refusal of its own settings.
public typealias WorkerSetupError = DriftWorker.WorkerSetupError
/// Where live metrics are served, and whether that may be off loopback.
public typealias MetricsAddress = DriftMetrics.MetricsAddress
/// What `driftfix history` asks the journal.
public typealias HistoryQuery = DriftJournal.HistoryQuery
/// A job as a run plans it, and what the dispatcher reports about jobs and workers (`RunObserver`).
public typealias JobRecord = DriftJobs.JobRecord
public typealias DispatchEvent = DriftCoordinator.DispatchEvent
/// A timeline for an editor: its file and format, and what its audio points at.
public typealias TimelineFile = DriftTimeline.TimelineFile
public typealias SyncTimeline = DriftTimeline.SyncTimeline
/// One file's repair: what to do, what came of it, and why it could not be done.
public typealias ProcessRequest = DriftRepair.ProcessRequest
public typealias ProcessResult = DriftRepair.ProcessResult
public typealias ProcessError = DriftRepair.ProcessError
public typealias PlanError = DriftRepair.PlanError
/// A file that cannot be read or written, and why.
public typealias AudioError = DriftAudio.AudioError
/// The cores this process may use (its affinity mask).
public typealias Cores = DriftSupport.Cores
