"""driftfix's benchmarks (scripts/bench.py): the shared timing and recording in core.py, one module of sections a
concern in sections/."""
