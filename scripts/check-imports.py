#!/usr/bin/env python3
"""Checks that every target in Package.swift declares exactly the modules its sources import, and that the module
table of docs/architecture.md names, for each library module, exactly the project modules Package.swift declares.

A module imported but not declared builds only by luck (another target happened to build it first); a module declared
but never imported is a false claim about the architecture. System modules (Foundation, Glibc, Testing, ...) are
exempt, and test targets may name the `driftfix` executable only to have it built before they run it.

Also: no source asks the kernel about a path made from text by its characters (`FilePath(text).resolvingLinks()`,
`.realPath()`), or turns the kernel's answer back into text with `.string`: a path carried as text is `PathText`,
whose escapes stand for bytes, so it goes to the kernel through `FilePath(pathText:)` and comes back as `.pathText`.
"""
import json
import os
import re
import subprocess
import sys

SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Dispatch", "Synchronization", "Testing", "XCTest"}
IMPORT = re.compile(r"^(?:@testable\s+)?(?:@_implementationOnly\s+)?(?:(?:internal|public|private|package|fileprivate)\s+)?import\s+(?:struct\s+|class\s+|enum\s+|func\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


CONDITIONAL = re.compile(r"^#if\b.*?^#endif\b", re.M | re.S)


def conditional_imports_dedented(text):
    """The source with the imports inside `#if` blocks (a trait's, indented by swift format) at the line's start, so
    they count; an indented `import` elsewhere is text (a script in a string literal), not Swift."""
    return CONDITIONAL.sub(lambda block: re.sub(r"^[ \t]+(?=import\s)", "", block.group(0), flags=re.M), text)


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                         capture_output=True, text=True).stdout)
    problems = []
    for target in manifest["targets"]:
        name = target["name"]
        if target["type"] == "system":
            continue
        folder = os.path.join(root, target.get("path") or ("Tests" if target["type"] == "test" else "Sources"), "" if target.get("path") else name)
        imports = set()
        for base, _, files in os.walk(folder):
            for file in files:
                if file.endswith(".swift"):
                    with open(os.path.join(base, file), encoding="utf-8") as handle:
                        imports.update(IMPORT.findall(conditional_imports_dedented(handle.read())))
        declared = set()
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        imports -= SYSTEM
        if not any(f.endswith(".swift") for _, _, fs in os.walk(folder) for f in fs):
            continue  # a C target
        missing = sorted(imports - declared)
        unused = sorted(declared - imports - ({"driftfix"} if target["type"] == "test" else set()))
        if missing:
            problems.append(f"{name}: imports {', '.join(missing)} without declaring it")
        if unused:
            problems.append(f"{name}: declares {', '.join(unused)} but never imports it")
    problems += check_front_end(manifest)
    problems += check_architecture(root, manifest)
    problems += check_path_bytes(root)
    for problem in problems:
        print(f"check-imports: {problem}", file=sys.stderr)
    return 1 if problems else 0


# The executable is a caller of the library like any other: it depends on DriftKit alone (whose public API carries the
# vocabulary modules it re-exports) and names no engine module.
FRONT_END = {"DriftKit"}


def check_front_end(manifest):
    problems = []
    for target in manifest["targets"]:
        if target["type"] != "executable" or target["name"] != "driftfix":
            continue
        declared = {d[k][0] for d in target.get("dependencies", []) for k in ("byName", "target") if k in d}
        engine = sorted(n for n in declared if n.startswith("Drift") and n not in FRONT_END)
        if "MemberImportVisibility" not in json.dumps(target.get("settings", [])):
            problems.append("driftfix: builds without MemberImportVisibility; a member of a module it does not import "
                            "would reach it through DriftKit's own imports")
        if engine:
            problems.append(f"driftfix: depends on {', '.join(engine)}; an executable goes through DriftKit "
                            f"(allowed: {', '.join(sorted(FRONT_END))})")
    return problems


def check_architecture(root, manifest):
    """The "depends on" column of docs/architecture.md's module table against Package.swift: the project's own
    modules only (short names: `Core` is DriftCore; packages and system libraries are described, not checked)."""
    targets = {t["name"]: t for t in manifest["targets"]}
    library = {n for n, t in targets.items() if t["type"] == "regular" and n.startswith("Drift")}
    documented = {}
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as handle:
        for line in handle:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3 or not re.fullmatch(r"`Drift[A-Za-z]+`", cells[0]):
                continue
            name = cells[0].strip("`")
            if name not in library:
                continue
            names = set()
            for word in re.split(r",\s*", cells[1]):
                word = word.split("(")[0].strip()
                for candidate in (word, "Drift" + word):
                    if candidate in targets:
                        names.add(candidate)
                        break
            documented[name] = names
    problems = []
    for name in sorted(library):
        declared = set()
        for dependency in targets[name].get("dependencies", []):
            for kind in ("byName", "target"):
                if kind in dependency and dependency[kind][0] in targets:
                    declared.add(dependency[kind][0])
        if name == "DriftKit":
            continue  # "all of the above": the composition root
        if name not in documented:
            problems.append(f"docs/architecture.md: no row for {name}")
        elif documented[name] != declared:
            extra, missing = sorted(documented[name] - declared), sorted(declared - documented[name])
            problems.append(f"docs/architecture.md: {name} depends on {', '.join(sorted(declared))} in Package.swift"
                            + (f"; the page also names {', '.join(extra)}" if extra else "")
                            + (f"; the page leaves out {', '.join(missing)}" if missing else ""))
    return problems


KERNEL_ON_TEXT = re.compile(r"FilePath\((?!pathText:|platformString:)[^()\n]*\)\s*\.(resolvingLinks|realPath)\(")
KERNEL_TO_STRING = re.compile(r"\.(resolvingLinks\(\)|realPath\(\)\??)\.string\b")


def check_path_bytes(root):
    problems = []
    for base, _, files in os.walk(os.path.join(root, "Sources")):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(base, file)
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    where = f"{os.path.relpath(path, root)}:{number}"
                    if KERNEL_ON_TEXT.search(line):
                        problems.append(f"{where}: the kernel asked about a path made from text by its characters; "
                                        "use FilePath(pathText:) or PathText.resolvingLinks/realPath")
                    if KERNEL_TO_STRING.search(line):
                        problems.append(f"{where}: a resolved path's bytes turned into repaired text; use .pathText")
    return problems


if __name__ == "__main__":
    sys.exit(main())
