#!/usr/bin/env python3
"""The benchmark tool's own tests (scripts/benchkit/tests): its timing against real processes with known answers, and
each section's readers of other programs' output against lines those programs printed. Run by scripts/test.sh."""
import os
import sys
import unittest

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, SCRIPTS)
suite = unittest.defaultTestLoader.discover(os.path.join(SCRIPTS, "benchkit", "tests"), top_level_dir=SCRIPTS)
sys.exit(0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1)
