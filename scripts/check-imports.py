#!/usr/bin/env python3
"""Checks that every target in Package.swift declares exactly the modules its sources import.

A module imported but not declared builds only by luck (another target happened to build it first); a module declared
but never imported is a false claim about the architecture. System modules (Foundation, Glibc, Testing, ...) are
exempt, and test targets may name the `driftfix` executable only to have it built before they run it.
"""
import json
import os
import re
import subprocess
import sys

SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Dispatch", "Synchronization", "Testing", "XCTest"}
IMPORT = re.compile(r"^(?:@testable\s+)?(?:@_implementationOnly\s+)?(?:(?:internal|public|private|package|fileprivate)\s+)?import\s+(?:struct\s+|class\s+|enum\s+|func\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


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
                        imports.update(IMPORT.findall(handle.read()))
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
    for problem in problems:
        print(f"check-imports: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
