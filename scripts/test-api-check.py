#!/usr/bin/env python3
"""The API check's readings against symbols and dumps made up here, so each test knows its answer: a text path behind
an unlabelled or differently labelled parameter is found, a `FilePath` one, a pattern, a labelled one (the digester's
part) and a declaration left out of a re-exported module's kept set are not; a Double span is found by its name.
Run by scripts/test.sh beside `api-check.py check`."""
import importlib.util
import os
import unittest

spec = importlib.util.spec_from_file_location(
    "api_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "api-check.py"))
api = importlib.util.module_from_spec(spec)
spec.loader.exec_module(api)


def function(path, title, *parameters):
    """A symbol-graph function as swift-symbolgraph-extract writes one: `parameters` are (label, name, type); a
    parameter's `name` is its label, or its name when it has none (`_`), and `internalName` is there when they differ."""
    made = []
    for label, name, kind in parameters:
        entry = {"name": name if label == "_" else label, "declarationFragments": [
            {"kind": "identifier", "spelling": name}, {"kind": "text", "spelling": ": "},
            {"kind": "typeIdentifier", "spelling": kind}]}
        if label not in (name, "_"):
            entry["internalName"] = name
        made.append(entry)
    return {"pathComponents": path, "names": {"title": title}, "functionSignature": {"parameters": made}}


class UnlabelledPaths(unittest.TestCase):
    def test_text_paths_behind_other_labels_are_found(self):
        symbols = [
            function(["GlobPattern", "matches(_:)"], "matches(_:)", ("_", "path", "String")),
            function(["Metrics", "write(to:)"], "write(to:)", ("to", "file", "String")),
            function(["Writer", "writeFolder(_:to:)"], "writeFolder(_:to:)", ("_", "report", "Report"),
                     ("to", "folder", "String")),
            function(["Roots", "init(_:)"], "init(_:)", ("_", "roots", "[String]")),
            function(["Policy", "engine(for:)"], "engine(for:)", ("for", "recording", "String?")),
        ]
        self.assertEqual(api.unlabelled_paths("M", None, symbols), sorted([
            "M.GlobPattern.matches(_:) (_ path: String)",
            "M.Metrics.write(to:) (to file: String)",
            "M.Writer.writeFolder(_:to:) (to folder: String)",
            "M.Roots.init(_:) (_ roots: [String])",
            "M.Policy.engine(for:) (for recording: String?)",
        ]))

    def test_typed_named_labelled_and_unkept_are_not(self):
        symbols = [
            function(["GlobPattern", "matches(_:)"], "matches(_:)", ("_", "path", "FilePath")),
            function(["Shown", "shown(_:)"], "shown(_:)", ("_", "text", "String")),
            # Labelled: the digester's dump shows the label, and paths_as_text reads it there.
            function(["Pattern", "init(recording:)"], "init(recording:)", ("recording", "recording", "String")),
            function(["Hidden", "open(_:)"], "open(_:)", ("_", "path", "String")),
        ]
        self.assertEqual(api.unlabelled_paths("M", {"GlobPattern", "Shown", "Pattern"}, symbols), [])


class NamedMembers(unittest.TestCase):
    def test_spans_and_paths_by_name_in_a_dump(self):
        root = {"kind": "Root", "name": "M", "children": [{"kind": "TypeDecl", "name": "Settings", "children": [
            {"kind": "Var", "name": "idleTimeout", "children": [{"printedName": "Swift.Double"}]},
            {"kind": "Var", "name": "grace", "children": [{"printedName": "Swift.Duration"}]},
            {"kind": "Var", "name": "logFolder", "children": [{"printedName": "Swift.String?"}]},
            {"kind": "Var", "name": "reportFolder", "isInternal": True, "children": [{"printedName": "Swift.String"}]},
        ]}]}
        self.assertEqual(api.spans_as_numbers("M", root), ["M.Settings.idleTimeout: Swift.Double"])
        self.assertEqual(api.paths_as_text("M", root), ["M.Settings.logFolder: Swift.String?"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
