// The types of the engine's modules that a front end names: the settings it fills, the events it shows and the
// errors it words. With these, a front end (the `driftfix` executable) imports DriftKit and the vocabulary modules
// (Core, Schema, Config, Rules, Reports) and no engine module; scripts/check-imports.py holds it to that. The types
// stay where they are defined, so the engine's modules do not depend on the run.

/// A file that cannot be read or written, and why.
@_exported public import struct DriftAudio.AudioError
/// What `driftfix history` asks the journal.
@_exported public import struct DriftJournal.HistoryQuery
/// Where live metrics are served, and whether that may be off loopback.
@_exported public import struct DriftRepair.PlanError
@_exported public import struct DriftRepair.ProcessError
/// One file's repair: what to do, what came of it, and why it could not be done.
@_exported public import struct DriftRepair.ProcessRequest
@_exported public import struct DriftRepair.ProcessResult
/// The cores this process may use (its affinity mask).
@_exported public import enum DriftSupport.Cores
@_exported public import struct DriftTimeline.SyncTimeline
/// A timeline for an editor: its file and format, and what its audio points at.
@_exported public import struct DriftTimeline.TimelineFile
@_exported public import enum DriftTransport.CurveKeyFile
/// A CURVE key pair, and the files that hold one.
@_exported public import struct DriftTransport.CurveKeyPair
/// A ZeroMQ endpoint's text and scheme.
@_exported public import enum DriftTransport.Endpoint
/// How a coordinator binds or a worker connects: plaintext on a private socket, or CURVE with key files.
@_exported public import struct DriftTransport.TransportPolicy
/// Why a transport policy was refused.
@_exported public import enum DriftTransport.TransportPolicyError
/// A worker's refusal of its own settings.
@_exported public import enum DriftWorker.WorkerSetupError
