#!/usr/bin/env python3
"""Holds the house limits: no Swift file (Sources, Tests, Plugins) over 500 lines, no function over 80 (from its `func`, `init`,
`deinit` or `subscript` line to its closing brace). A long function is split into named steps; a long file into
`Type+Topic.swift` files.

Exceptions are listed below with their reasons; none in Sources.
"""
import os
import re
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
# Files whose functions may be longer, with the reason (paths from the repository's root). Each is a night told as one
# scenario, read top to bottom: its set-up, the disruption, then every expectation on the outcome; split into helpers,
# the story would be spread over a file. Their files still keep to 500 lines.
SCENARIOS = "a whole night as one scenario, read top to bottom"
LONG_FUNCTIONS = {
    "Tests/DistributedTests/ChaosTests.swift": SCENARIOS,
    "Tests/DistributedTests/FleetTests.swift": SCENARIOS,
    "Tests/DistributedTests/KubernetesManifestTests.swift": "the manifests rendered and each one's command line run",
    "Tests/DistributedTests/SlurmLauncherTests.swift": SCENARIOS,
    "Tests/DriftJournalTests/HistoryTests.swift": "nights recorded, then every query over them",
    "Tests/EndToEndTests/ContentCommandTests.swift": SCENARIOS,
    "Tests/EndToEndTests/OneStatusTests.swift": "one shoot with a file of every status, each checked",
    "Tests/EndToEndTests/SyncCommandTests.swift": SCENARIOS,
    "Tests/EndToEndTests/TimelineTests.swift": "one shoot, then each timeline format checked against it",
}

DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|private|fileprivate|internal|package|static|class|override|mutating|nonisolated|final|convenience"
    r"|required|@discardableResult)\s+)*"
    r"(?:func\s+[^\s(<]+|init[?!]?|deinit|subscript)[\s(<{]")


def code(line):
    """The line without string literals and its end-of-line comment, for counting braces."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    return line.split("//")[0]


def functions(lines):
    """(first line, length) of every function-like declaration with a body."""
    i = 0
    while i < len(lines):
        if not DECLARATION.match(lines[i]):
            i += 1
            continue
        depth, opened, j = 0, False, i
        while j < len(lines):
            text = code(lines[j])
            depth += text.count("{") - text.count("}")
            opened = opened or "{" in text
            if opened and depth <= 0:
                break
            j += 1
        if opened:
            yield i + 1, j - i + 1
            i = j + 1
        else:
            i += 1


def main():
    repository = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = []
    for base, _, files in sorted(w for top in ("Sources", "Tests", "Plugins")
                                 for w in os.walk(os.path.join(repository, top))):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(base, name)
            relative = os.path.relpath(path, repository)
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            if len(lines) > MAX_FILE_LINES:
                problems.append(f"{relative}: {len(lines)} lines (at most {MAX_FILE_LINES}; split it by topic)")
            for start, length in functions(lines):
                if length > MAX_FUNCTION_LINES and relative not in LONG_FUNCTIONS:
                    problems.append(f"{relative}:{start}: a function of {length} lines (at most {MAX_FUNCTION_LINES})")
    for problem in problems:
        print(f"check-sizes: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
