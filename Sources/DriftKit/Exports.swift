// The vocabulary the library speaks is part of its API: a caller who imports DriftKit names rational times, target
// lengths, methods and policies (Core), report rows (Schema), the configuration (Config), the scan's rules (Rules)
// and the report writers (Reports) without importing a module of the engine. The engine's modules stay internal to the
// library: its own types (`Recording`, `Run`, `RunEvent`, ...) stand between them and a caller.
@_exported public import DriftConfig
@_exported public import DriftCore
@_exported public import DriftReports
@_exported public import DriftRules
@_exported public import DriftSchema
