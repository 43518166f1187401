import DriftAudio
import DriftFixtures
import Foundation
import Testing
import Yams

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardized.path
/// kubectl 1.21 or later: older ones embed kustomize 2, which cannot read an overlay's directory resources.
private let kubectl: String? = {
    guard
        let path = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }),
        let version = try? runChild(path, ["version", "--client", "-o", "json"]), version.status == 0,
        let object = try? JSONSerialization.jsonObject(with: Data(version.stdout.utf8)) as? [String: Any],
        let minor = (object["clientVersion"] as? [String: Any])?["minor"] as? String,
        let number = Int(minor.prefix { $0.isNumber }), number >= 21
    else { return nil }
    return path
}()
private let noKubectl =
    "kubectl 1.21 or later not installed (scripts/install-deps.sh installs apt's kubernetes-client where none is)"

/// A rendered object, as the API server would get it.
private typealias Object = [String: Any]

extension Dictionary where Key == String, Value == Any {
    fileprivate subscript(path path: String) -> Any? {
        var current: Any? = self
        for key in path.split(separator: ".") { current = (current as? [String: Any])?[String(key)] }
        return current
    }
    fileprivate func string(_ path: String) -> String? { self[path: path] as? String }
    fileprivate func objects(_ path: String) -> [Object] { self[path: path] as? [Object] ?? [] }
    fileprivate var kind: String { string("kind") ?? "" }
    /// An object's `metadata.name`; a container's, volume's or mount's `name`.
    fileprivate var name: String { string("metadata.name") ?? string("name") ?? "" }
}

/// The manifests with keys made by `driftfix keygen` (as an operator does), rendered by `kubectl kustomize`.
private struct Rendering {
    let folder: TemporaryFolder
    let objects: [Object]

    init(overlay: String) throws {
        folder = TemporaryFolder("driftfix-k8s")
        let copy = try runChild("/bin/cp", ["-r", root + "/deploy/kubernetes/.", folder.path])
        try #require(copy.status == 0, "\(copy.stderr)")
        for name in ["coordinator", "worker"] {
            let made = try runChild(driftfixPath(), ["keygen", name, "--out", folder.path + "/base/keys"])
            try #require(made.status == 0, "\(made.stderr)")
        }
        let rendered = try runChild(try #require(kubectl), ["kustomize", folder.path + "/" + overlay])
        try #require(rendered.status == 0, "kubectl kustomize \(overlay): \(rendered.stderr)")
        objects = try Yams.load_all(yaml: rendered.stdout).compactMap { $0 as? Object }
    }

    func one(_ kind: String, _ name: String? = nil) throws -> Object {
        try #require(objects.first { $0.kind == kind && (name == nil || $0.name == name) }, "no \(kind) \(name ?? "")")
    }

    /// The pod templates: the worker Deployment's and the nightly CronJob's.
    var worker: Object {
        get throws { try #require(try one("Deployment", "driftfix-worker")[path: "spec.template"] as? Object) }
    }
    var night: Object {
        get throws {
            try #require(try one("CronJob", "driftfix-night")[path: "spec.jobTemplate.spec.template"] as? Object)
        }
    }
}

/// A container's command line and environment, its mount paths mapped to folders on this machine, the cluster's
/// names and ports mapped to loopback: the manifests' own words run as local processes.
private struct LocalPod {
    /// Mount path in the container → folder here, longest first.
    var mounts: [(String, String)] = []
    var rewrites: [(String, String)] = []

    /// `word` with every mount path that begins a path in it (`sh -c` scripts and config values hold several)
    /// replaced by its folder, in one pass so that a folder put in is never mapped again.
    func map(_ word: String) -> String {
        var text = word
        for (from, to) in rewrites { text = text.replacingOccurrences(of: from, with: to) }
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let startsPath =
                text[index] == "/"
                && (index == text.startIndex || " '\"[=:,\n".contains(text[text.index(before: index)]))
            if startsPath,
                let (path, folder) = mounts.first(where: { path, _ in
                    text[index...].hasPrefix(path)
                        && (text[index...].count == path.count
                            || "/ '\"],\n".contains(text[text.index(index, offsetBy: path.count)]))
                })
            {
                result += folder
                index = text.index(index, offsetBy: path.count)
            } else {
                result.append(text[index])
                index = text.index(after: index)
            }
        }
        return result
    }

    func commandLine(_ container: Object) throws -> (
        executable: String, arguments: [String], environment: [String: String]
    ) {
        let command = (container["command"] as? [String] ?? []) + (container["args"] as? [String] ?? [])
        let first = try #require(command.first, "\(container.name) has no command")
        let executable = first == "driftfix" ? driftfixPath() : first
        var environment: [String: String] = [:]
        for variable in container.objects("env") {
            if let name = variable.string("name"), let value = variable.string("value") {
                environment[name] = map(value)
            }
        }
        return (executable, command.dropFirst().map(map), environment)
    }
}

/// Materializes a pod's volumes as folders: claims from `claims`, Secrets and ConfigMaps from the rendering (their
/// files written as the kubelet would, config text mapped like the command lines), emptyDirs fresh.
private func localPod(
    _ template: Object, _ rendering: Rendering, claims: [String: String], scratch: TemporaryFolder,
    rewrites: [(String, String)]
) throws -> LocalPod {
    var pod = LocalPod(rewrites: rewrites)
    let spec = try #require(template["spec"] as? Object)
    var folders: [String: String] = [:]
    var pending: [(folder: String, files: [String: String], mode: Int)] = []
    for volume in spec.objects("volumes") {
        let folder = scratch.file(UUID().uuidString)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let claim = volume.string("persistentVolumeClaim.claimName") {
            folders[volume.name] = try #require(claims[claim], "no local folder for claim \(claim)")
            continue
        }
        folders[volume.name] = folder
        if let secretName = volume.string("secret.secretName") {
            let secret = try rendering.one("Secret", secretName)
            var files: [String: String] = [:]
            for (key, value) in secret["data"] as? [String: String] ?? [:] {
                let bytes = try #require(Data(base64Encoded: value.replacingOccurrences(of: "\n", with: "")))
                files[key] = String(decoding: bytes, as: UTF8.self)
            }
            pending.append((folder, files, volume["secret.defaultMode"] as? Int ?? 0o644))
        } else if let mapName = volume.string("configMap.name") {
            pending.append((folder, try rendering.one("ConfigMap", mapName)["data"] as? [String: String] ?? [:], 0o644))
        }
    }
    for container in spec.objects("initContainers") + spec.objects("containers") {
        for mount in container.objects("volumeMounts") {
            let path = try #require(mount.string("mountPath"))
            let folder = try #require(folders[mount.name], "\(container.name) mounts \(mount.name), which is no volume")
            if !pod.mounts.contains(where: { $0.0 == path }) { pod.mounts.append((path, folder)) }
        }
    }
    pod.mounts.sort { $0.0.count > $1.0.count }
    for (folder, files, mode) in pending {
        for (name, text) in files {
            try pod.map(text).write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            chmod(folder + "/" + name, mode_t(mode))
        }
    }
    return pod
}

/// The body of an HTTP GET (a plain client: python3's urllib), nil unless it answers 200.
private func get(_ url: String) -> String? {
    guard
        let result = try? runChild(
            "/usr/bin/python3",
            [
                "-c",
                "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())",
                url,
            ]),
        result.status == 0
    else { return nil }
    return result.stdout
}

/// A pod's init containers, in order, each to a clean exit (as the kubelet runs them before the main container).
private func runInitContainers(_ template: Object, _ pod: LocalPod) throws {
    for initContainer in template.objects("spec.initContainers") {
        let line = try pod.commandLine(initContainer)
        let done = try runChild(line.executable, line.arguments, environment: line.environment)
        #expect(done.status == 0, "init container \(initContainer.name): \(done.stderr)")
    }
}

private func port() -> Int { freeTCPPort() }

/// The option names of a command line (`--bind`, `--persistent`, ...), in order.
private func options(_ words: [String]) -> [String] { words.filter { $0.hasPrefix("--") } }

@Suite("Kubernetes manifests (kustomize), proven by running their own command lines", .serialized)
struct KubernetesManifestTests {
    @Test(
        "the rendering is whole: images, ports, probes, volumes, Secrets, ConfigMaps and claims resolve; workers persistent, non-root, read-only root, a grace period above the drain timeout, scrape annotations; the CronJob forbids overlap and keeps the journal on its own volume; the Service reaches the coordinator",
        .enabled(if: kubectl != nil, Comment(rawValue: noKubectl)))
    func structure() throws {
        let rendering = try Rendering(overlay: "base")
        let templates = try [("worker", rendering.worker), ("night", rendering.night)]
        for (label, template) in templates {
            let spec = try #require(template["spec"] as? Object)
            #expect(spec[path: "securityContext.runAsNonRoot"] as? Bool == true, "\(label)")
            #expect((spec[path: "securityContext.runAsUser"] as? Int ?? 0) > 0, "\(label)")
            let volumes = Set(spec.objects("volumes").map(\.name))
            for volume in spec.objects("volumes") {
                if let secret = volume.string("secret.secretName") { _ = try rendering.one("Secret", secret) }
                if let map = volume.string("configMap.name") { _ = try rendering.one("ConfigMap", map) }
                if let claim = volume.string("persistentVolumeClaim.claimName") {
                    _ = try rendering.one("PersistentVolumeClaim", claim)
                }
            }
            for container in spec.objects("initContainers") + spec.objects("containers") {
                #expect(container.string("image") == "driftfix:0.3.0", "\(label)/\(container.name)")
                #expect(
                    container[path: "securityContext.readOnlyRootFilesystem"] as? Bool == true,
                    "\(label)/\(container.name)")
                #expect(
                    container[path: "securityContext.allowPrivilegeEscalation"] as? Bool == false,
                    "\(label)/\(container.name)")
                for mount in container.objects("volumeMounts") {
                    #expect(volumes.contains(mount.name), "\(label)/\(container.name): \(mount.name)")
                }
                let ports = Set(container.objects("ports").compactMap { $0.string("name") })
                for probe in ["readinessProbe", "livenessProbe"] {
                    guard let port = container.string("\(probe).httpGet.port") else { continue }
                    #expect(
                        ports.contains(port) && container.string("\(probe).httpGet.path") == "/healthz",
                        "\(label)/\(container.name) \(probe)")
                }
            }
        }
        // Workers: persistent, drained inside the grace period, probed and scraped on their metrics port.
        let worker = try rendering.worker
        let workerContainer = try #require(worker.objects("spec.containers").first)
        let workerArgs = workerContainer["args"] as? [String] ?? []
        #expect(workerArgs.contains("--persistent"))
        let drain = try #require(workerArgs.firstIndex(of: "--drain-timeout").flatMap { Int(workerArgs[$0 + 1]) })
        #expect((worker[path: "spec.terminationGracePeriodSeconds"] as? Int ?? 0) > drain)
        #expect(
            workerContainer.string("readinessProbe.httpGet.path") == "/healthz"
                && workerContainer.string("livenessProbe.httpGet.path") == "/healthz")
        let metricsPort = try #require(
            workerContainer.objects("ports").first { $0.string("name") == "metrics" }?["containerPort"] as? Int)
        let annotations = worker[path: "metadata.annotations"] as? [String: String] ?? [:]
        #expect(annotations["prometheus.io/scrape"] == "true" && annotations["prometheus.io/port"] == "\(metricsPort)")
        #expect(workerArgs.contains("0.0.0.0:\(metricsPort)"))
        #expect(
            try #require(workerContainer.objects("volumeMounts").first { $0.string("mountPath") == "/media" })[
                "readOnly"] as? Bool == true)

        // The night: no overlap, the journal where the config says, on a claim of its own.
        let cron = try rendering.one("CronJob", "driftfix-night")
        #expect(cron.string("spec.concurrencyPolicy") == "Forbid")
        let night = try rendering.night
        let coordinator = try #require(night.objects("spec.containers").first)
        let config = try #require(
            try Yams.load(
                yaml: try rendering.one("ConfigMap")["data"].flatMap { ($0 as? [String: String])?["driftfix.yaml"] }
                    ?? "") as? Object)
        let journal = try #require(config.string("journal.path"))
        let journalMount = try #require(
            coordinator.objects("volumeMounts").first { journal.hasPrefix(($0.string("mountPath") ?? "") + "/") })
        let journalVolume = try #require(night.objects("spec.volumes").first { $0.name == journalMount.name })
        #expect(journalVolume.string("persistentVolumeClaim.claimName") == "driftfix-journal")

        // The Service selects the coordinator's pod and names its ports; the workers connect to it.
        let service = try rendering.one("Service", "driftfix-coordinator")
        let labels = night[path: "metadata.labels"] as? [String: String] ?? [:]
        for (key, value) in service[path: "spec.selector"] as? [String: String] ?? [:] {
            #expect(labels[key] == value, "selector \(key)")
        }
        let coordinatorPorts = Set(coordinator.objects("ports").compactMap { $0.string("name") })
        let zmq = try #require(service.objects("spec.ports").first { $0.string("name") == "zmq" })
        #expect(service.objects("spec.ports").allSatisfy { coordinatorPorts.contains($0.string("targetPort") ?? "") })
        #expect(workerArgs.contains("tcp://driftfix-coordinator:\(zmq["port"] as? Int ?? 0)"))

        // The autoscaling overlay scales that Deployment on a series the coordinator serves (checked live below).
        let scaled = try Rendering(overlay: "autoscaling")
        let hpa = try scaled.one("HorizontalPodAutoscaler", "driftfix-worker")
        #expect(
            hpa.string("spec.scaleTargetRef.name") == "driftfix-worker"
                && hpa.string("spec.scaleTargetRef.kind") == "Deployment")
        #expect(hpa.objects("spec.metrics").first?.string("external.metric.name") == "driftfix_run_jobs")
    }

    @Test(
        "the rendered command lines run: key init containers, two persistent workers and the night's coordinator as local processes over loopback; every output exact, /healthz and the HPA's series served, SIGTERM drains the workers",
        .enabled(if: kubectl != nil, Comment(rawValue: noKubectl)))
    func commandLinesRun() throws {
        let rendering = try Rendering(overlay: "autoscaling")
        let tree = try RepairTree(drifted: 8, frames: 48_000 * 2, channels: 2, folders: 2)
        let out = TemporaryFolder("driftfix-out")
        let journal = TemporaryFolder("driftfix-journal")
        let scratch = TemporaryFolder("driftfix-pods")
        let claims = [
            "driftfix-media": tree.root.path, "driftfix-repaired": out.path, "driftfix-journal": journal.path,
        ]
        let zmq = port()
        // Cluster DNS and wildcard binds → loopback; each pod's metrics port its own (pods have their own network).
        let coordinatorMetrics = port()
        let serviceRewrites = [
            ("tcp://driftfix-coordinator:5555", "tcp://127.0.0.1:\(zmq)"),
            ("tcp://0.0.0.0:5555", "tcp://127.0.0.1:\(zmq)"),
        ]

        var workers: [(Background, Int)] = []
        defer { for (worker, _) in workers where worker.isRunning { kill(worker.pid, SIGKILL) } }
        let workerTemplate = try rendering.worker
        let replicas = try rendering.one("Deployment", "driftfix-worker")[path: "spec.replicas"] as? Int ?? 1
        for _ in 0..<replicas {
            let metrics = port()
            let pod = try localPod(
                workerTemplate, rendering, claims: claims, scratch: scratch,
                rewrites: serviceRewrites + [("0.0.0.0:9464", "127.0.0.1:\(metrics)")])
            try runInitContainers(workerTemplate, pod)
            let line = try pod.commandLine(try #require(workerTemplate.objects("spec.containers").first))
            workers.append(
                (try Background(line.arguments, environment: line.environment, executable: line.executable), metrics))
        }

        let nightTemplate = try rendering.night
        let pod = try localPod(
            nightTemplate, rendering, claims: claims, scratch: scratch,
            rewrites: serviceRewrites + [("0.0.0.0:9464", "127.0.0.1:\(coordinatorMetrics)")])
        try runInitContainers(nightTemplate, pod)
        let line = try pod.commandLine(try #require(nightTemplate.objects("spec.containers").first))
        let coordinator = try Background(line.arguments, environment: line.environment, executable: line.executable)
        // The HPA's series, from the coordinator's own /metrics while the night runs.
        let metric = try #require(
            rendering.one("HorizontalPodAutoscaler").objects("spec.metrics").first?.string("external.metric.name"))
        var served = ""
        _ = waitUntil(seconds: 60) {
            served = get("http://127.0.0.1:\(coordinatorMetrics)/metrics") ?? ""
            return served.contains("\(metric){state=\"queued\"}") || !coordinator.isRunning
        }
        let result = coordinator.wait(seconds: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(served.contains("\(metric){state=\"queued\"}"), "the HPA's series: \(served.prefix(400))")
        for entry in tree.entries {
            #expect(try AudioFileReader(path: tree.output(entry, in: out.path)).frameCount == entry.target)
        }
        #expect(
            FileManager.default.fileExists(atPath: journal.path + "/journal.sqlite"), "the journal on its own volume")
        #expect(FileManager.default.fileExists(atPath: out.path + "/_report/report.json"))

        // The workers stay up (persistent), ready on their probe, and drain on SIGTERM within the grace period.
        let grace = Double(workerTemplate[path: "spec.terminationGracePeriodSeconds"] as? Int ?? 30)
        for (worker, metrics) in workers {
            #expect(worker.isRunning, "a persistent worker outlives the night")
            let health = get("http://127.0.0.1:\(metrics)/healthz")
            #expect(health != nil, "readiness probe on \(metrics)")
            kill(worker.pid, SIGTERM)
        }
        for (worker, _) in workers {
            #expect(worker.wait(seconds: grace).status == 0)
        }
    }

    @Test(
        "compose and the Dockerfile run the manifests' command lines: the same arguments for the coordinator and the workers, the same entry point",
        .enabled(if: kubectl != nil, Comment(rawValue: noKubectl)))
    func composeMatches() throws {
        let rendering = try Rendering(overlay: "base")
        let compose = try #require(
            try Yams.load(yaml: String(contentsOfFile: root + "/docker-compose.yml", encoding: .utf8)) as? Object)
        let worker = try #require(try rendering.worker.objects("spec.containers").first)
        let coordinator = try #require(try rendering.night.objects("spec.containers").first)
        #expect(
            compose[path: "services.worker"].flatMap { ($0 as? Object)?["command"] as? [String] } == worker["args"]
                as? [String])
        #expect(
            compose[path: "services.coordinator"].flatMap { ($0 as? Object)?["command"] as? [String] } == coordinator[
                "args"] as? [String])
        let dockerfile = try String(contentsOfFile: root + "/Dockerfile", encoding: .utf8)
        let entrypoint = dockerfile.split(separator: "\n").first { $0.hasPrefix("ENTRYPOINT") }.map(String.init) ?? ""
        for container in [worker, coordinator] {
            let command = container["command"] as? [String] ?? []
            #expect(
                entrypoint == "ENTRYPOINT [\(command.map { "\"\($0)\"" }.joined(separator: ", "))]",
                "\(entrypoint) vs \(command)")
        }
        // The image's user is the one the pods run as.
        let user = try #require(try rendering.worker[path: "spec.securityContext.runAsUser"] as? Int)
        #expect(dockerfile.contains("USER \(user):"))
        #expect(options(worker["args"] as? [String] ?? []).contains("--persistent"))
    }
}
