#!/usr/bin/env python3
"""DriftKit's public API held to its last release's by swift-api-digester, as `swift package
diagnose-api-breaking-changes` does, on the modules the test build already made (seconds, not a second build).

The API is DriftKit's own declarations, the vocabulary modules it re-exports whole (Exports.swift), and the engine
types it re-exports one by one (RunVocabulary.swift). `baseline` records it (at a release: api/baseline/, gzipped, with
the revision); `check` dumps the current build's and fails on every breaking change that api/allowed-breaks.txt does
not list (each break a release makes is named there and in CHANGELOG.md). Additions are never breaks. `check` also
refuses a public property or parameter named for a span of time (seconds, ms, a timeout) that is a Double: spans are
`Duration`s, and a report keeps its JSON number `package` behind one. It refuses a path held as text too (a property
or parameter named for one: `path`, `folder`, `roots`, `...File`, `input`, `output`, `recording`, `clips`): paths are
`FilePath`s, a report row's too (the report's JSON keeps their text, `package` behind them). The digester's dump has
only a parameter's label, so the parameters whose label does not say a path (`_ path: String`, `to folder: String`)
are read from the module's symbol graph (swift-symbolgraph-extract), which has the name inside the function too.

Why not `swift package diagnose-api-breaking-changes` itself: it rebuilds the baseline revision from scratch (6 minutes
here), and its digester then loads the baseline's modules beside the build's plugin-tool copies of the benchmark
package's C modules ("redefinition of module 'MallocInterposerC'") and dumps nothing.
"""
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "api", "baseline")
ALLOWED = os.path.join(ROOT, "api", "allowed-breaks.txt")
BUILD = os.path.join(ROOT, ".build", "debug")


def exported():
    """Module -> names to keep (None: the whole module)."""
    modules = {"DriftKit": None}
    kit = os.path.join(ROOT, "Sources", "DriftKit")
    for name in sorted(os.listdir(kit)):
        if not name.endswith(".swift"):
            continue
        text = open(os.path.join(kit, name), encoding="utf-8").read()
        for module in re.findall(r"^@_exported public import (\w+)$", text, re.M):
            modules[module] = None
        for module, declaration in re.findall(
                r"^@_exported public import (?:struct|enum|class|protocol|actor) (\w+)\.(\w+)$", text, re.M):
            if modules.get(module, set()) is not None:
                modules.setdefault(module, set()).add(declaration)
    return modules


def module_maps():
    args = []
    for path in sorted(glob.glob(os.path.join(BUILD, "*.build", "module.modulemap"))):
        if "-tool.build" not in path:
            args += ["-Xcc", f"-fmodule-map-file={path}"]
    skipped = ("/Benchmarks/", "/Tests/", "GRDBSQLCipher", "SQLiteCustom", "GRDB.swift/Support")
    for base in (os.path.join(ROOT, "Sources"), os.path.join(ROOT, ".build", "checkouts")):
        for folder, _, files in os.walk(base):
            if "module.modulemap" in files and not any(s in folder + "/" for s in skipped):
                args += ["-Xcc", f"-fmodule-map-file={os.path.join(folder, 'module.modulemap')}"]
    return args


def dump(module, keep, into):
    """The module's API as the digester sees it, cut to `keep`'s declarations where the module is re-exported in part."""
    out = os.path.join(into, module + ".json")
    run = subprocess.run(["swift-api-digester", "-dump-sdk", "-module", module, "-o", out,
                          "-I", os.path.join(BUILD, "Modules"), "-target", "x86_64-unknown-linux-gnu",
                          "-abort-on-module-fail"] + module_maps(), capture_output=True, text=True)
    if run.returncode != 0 or not os.path.getsize(out):
        sys.exit(f"api-check: swift-api-digester could not read {module} (build the tests first):\n{run.stderr}")
    if keep is not None:
        with open(out) as handle:
            data = json.load(handle)
        # The types re-exported one by one, and the module's extensions of other modules' types: importing one
        # declaration of a module makes its extension members visible too.
        data["ABIRoot"]["children"] = [c for c in data["ABIRoot"]["children"]
                                       if c.get("kind") == "TypeDecl" and (c.get("name") in keep or c.get("isExternal"))]
        with open(out, "w") as handle:
            json.dump(data, handle)
    return out


def baseline():
    os.makedirs(BASELINE, exist_ok=True)
    for old in glob.glob(os.path.join(BASELINE, "*.json.gz")):
        os.remove(old)
    with tempfile.TemporaryDirectory() as work:
        for module, keep in exported().items():
            with open(dump(module, keep, work), "rb") as source, gzip.open(
                    os.path.join(BASELINE, module + ".json.gz"), "wb", compresslevel=9) as target:
                target.write(source.read())
    revision = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    with open(os.path.join(BASELINE, "REVISION"), "w") as handle:
        handle.write(revision + "\n")
    print(f"api-check: baseline of {len(exported())} modules recorded at {revision}")


# A name that says seconds, milliseconds, a timeout or an interval, at its end or before a next word (`offsetMsError`).
SPAN = re.compile(r"(seconds|Seconds|Ms|Milliseconds|Timeout|timeout|Interval|interval|[eE]lapsed)(?![a-z])")


def declarations(root):
    """Every declaration of a dump by its USR: (kind, printed name, whether below public)."""
    found = {}

    def walk(node):
        if node.get("usr") and node.get("kind") in ("TypeDecl", "Var", "Constructor", "Function", "TypeAlias"):
            found[node["usr"]] = (node.get("declKind", node["kind"]), node.get("printedName", node.get("name")),
                                  bool(node.get("isInternal")))
        for child in node.get("children", []) or []:
            walk(child)

    walk(root)
    return found


def narrowed(module, old_root, new_root):
    """Public declarations of the baseline that are still there but no longer public (made `package`): a break the
    digester does not report, for it dumps `package` declarations beside the public ones."""
    new = declarations(new_root)
    return [f"{module}: {kind} {name} is no longer public"
            for usr, (kind, name, internal) in sorted(declarations(old_root).items())
            if not internal and usr in new and new[usr][2]]


def named_members(module, root, named, typed):
    """Public properties and parameters whose name `named` matches and whose type `typed` accepts (a printed type)."""
    found = []

    def walk(node, path):
        if node.get("isInternal"):
            return  # `package` or below: not the API
        kind, name = node.get("kind"), node.get("name", "")
        if kind == "Var" and named.search(name) and typed(node["children"][0].get("printedName", "")):
            found.append(f"{path}.{name}: {node['children'][0]['printedName']}")
        if kind in ("Constructor", "Function"):
            labels = re.findall(r"(\w+):", node.get("printedName", ""))
            for label, parameter in zip(labels, node.get("children", [])[1:]):
                if named.search(label) and typed(parameter.get("printedName", "")):
                    found.append(f"{path}.{node['printedName']} ({label}: {parameter['printedName']})")
        for child in node.get("children", []) or []:
            if child.get("kind") in ("TypeDecl", "Var", "Constructor", "Function"):
                walk(child, f"{path}.{name}" if kind == "TypeDecl" else path)

    walk(root, module)
    return found


def spans_as_numbers(module, root):
    """Public properties and parameters named for a span of time whose type is a Double (or TimeInterval)."""
    return named_members(module, root, SPAN, lambda printed: "Swift.Double" in printed or "TimeInterval" in printed)


# A name that says a path: `path`, `outputRoot`, `inputRoots`, `logFolder`, `directory`, `metricsFile`, `input`,
# `recording`, `reference`, `unmatchedClips`.
PATHNAME = re.compile(r"([pP]ath|[fF]older|[rR]oots?|[dD]irectory|[fF]ile|[iI]nput|[oO]utput|[rR]ecording|[rR]eference|"
                      r"[cC]lip)s?$")
# Named so but text by nature: patterns that make or match paths (`{folder}/{stem}.wav`, `{stem}.wav`), not paths.
NOT_PATHS = {"DriftRules.PairingRules.soundOutput: Swift.String", "DriftRules.PairPattern.recording: Swift.String",
             "DriftRules.PairPattern.reference: Swift.String",
             "DriftRules.PairPattern.init(recording:reference:) (recording: Swift.String)",
             "DriftRules.PairPattern.init(recording:reference:) (reference: Swift.String)"}
TEXT = ("Swift.String", "[Swift.String]", "Swift.String?", "Swift.Optional<Swift.String>", "Swift.Array<Swift.String>")


def paths_as_text(module, root):
    """Public properties and parameters named for a path whose type is text (`String`, `[String]`, `String?`)."""
    return [found for found in named_members(module, root, PATHNAME, lambda printed: printed in TEXT)
            if found not in NOT_PATHS]


def symbol_graph(module, into):
    """The module's public symbols as swift-symbolgraph-extract writes them (parameters with their inner names)."""
    run = subprocess.run(["swift-symbolgraph-extract", "-module-name", module, "-I", os.path.join(BUILD, "Modules"),
                          "-target", "x86_64-unknown-linux-gnu", "-output-dir", into, "-minimum-access-level", "public"]
                         + module_maps(), capture_output=True, text=True)
    graph = os.path.join(into, module + ".symbols.json")
    if run.returncode != 0 or not os.path.exists(graph):
        sys.exit(f"api-check: swift-symbolgraph-extract could not read {module} (build the tests first):\n{run.stderr}")
    with open(graph) as handle:
        return json.load(handle)["symbols"]


def unlabelled_paths(module, keep, symbols):
    """Public function parameters named for a path inside the function, of a text type, whose label says otherwise
    (`matches(_ path: String)`, `write(to path: String)`): what `paths_as_text`, reading labels, cannot see."""
    found = []
    for symbol in symbols:
        signature = symbol.get("functionSignature")
        if not signature or (keep is not None and symbol["pathComponents"][0] not in keep):
            continue
        title = symbol["names"]["title"]
        labels = re.findall(r"(\w+):", title[title.find("("):]) if "(" in title else []
        for index, parameter in enumerate(signature.get("parameters", [])):
            inner = parameter.get("internalName") or parameter.get("name", "")
            label = labels[index] if index < len(labels) else inner
            printed = "".join(f["spelling"] for f in parameter.get("declarationFragments", []))
            kind = printed.split(": ", 1)[-1].strip()
            if label != inner and PATHNAME.search(inner) and kind in ("String", "[String]", "String?"):
                found.append(f"{module}.{'.'.join(symbol['pathComponents'])} ({label} {inner}: {kind})")
    return sorted(set(found))


def check():
    allowed = set()
    if os.path.exists(ALLOWED):
        allowed = {line.strip() for line in open(ALLOWED, encoding="utf-8")
                   if line.strip() and not line.startswith("#")}
    revision = open(os.path.join(BASELINE, "REVISION")).read().strip()
    breaks, seen = [], set()
    spans, paths = [], []
    with tempfile.TemporaryDirectory() as work:
        for module, keep in exported().items():
            new = dump(module, keep, work)
            with open(new) as handle:
                root = json.load(handle)["ABIRoot"]
                spans += spans_as_numbers(module, root)
                # Every path a caller gives or is given is a FilePath, the reports' rows' too (their JSON keeps the text).
                paths.extend(paths_as_text(module, root))
            paths.extend(unlabelled_paths(module, keep, symbol_graph(module, work)))
            recorded = os.path.join(BASELINE, module + ".json.gz")
            if not os.path.exists(recorded):
                continue  # new in this version: nothing to break
            old = os.path.join(work, module + ".baseline.json")
            with gzip.open(recorded, "rb") as source, open(old, "wb") as target:
                target.write(source.read())
            with open(old) as before, open(new) as after:
                for entry in narrowed(module, json.load(before)["ABIRoot"], json.load(after)["ABIRoot"]):
                    seen.add(entry)
                    if entry not in allowed:
                        breaks.append(entry)
            report = os.path.join(work, module + ".diagnosis")
            subprocess.run(["swift-api-digester", "-diagnose-sdk", "-input-paths", old, "-input-paths", new,
                            "-o", report], check=True, capture_output=True)
            for line in open(report, encoding="utf-8"):
                line = line.strip()
                if line and not line.startswith("/*"):
                    entry = f"{module}: {line}"
                    seen.add(entry)
                    if entry not in allowed:
                        breaks.append(entry)
    stale = sorted(allowed - seen)
    for entry in stale:
        print(f"api-check: allowed but no longer breaking (remove it from api/allowed-breaks.txt): {entry}")
    failed = False
    for entries, headline in (
            (spans, "spans of time as numbers in DriftKit's API (a Duration says what it holds; keep a report's JSON "
                    "number `package` behind one)"),
            (paths, "paths as text in DriftKit's API (a FilePath keeps every byte and says what it holds)"),
            (breaks, f"breaking changes to DriftKit's API since {revision[:12]}, not in api/allowed-breaks.txt (name "
                     "each in CHANGELOG.md and there, or keep the API)")):
        if entries:
            failed = True
            print(f"api-check: {len(entries)} {headline}:", file=sys.stderr)
            for entry in entries:
                print(f"  {entry}", file=sys.stderr)
    if failed:
        return 1
    print(f"api-check: DriftKit's API keeps every declaration of {revision[:12]} "
          f"({len(seen)} allowed breaks, each in CHANGELOG.md); it holds no span as a number and no path as text")
    return 1 if stale else 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    if command == "baseline":
        baseline()
    elif command == "check":
        sys.exit(check())
    else:
        sys.exit("usage: api-check.py check|baseline")
