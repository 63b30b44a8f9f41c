"""Differential fuzzing against real cuTile: a seeded generator of valid cuTile modules (gen), a
runner that translates them and compares the original with the translation through the harness
(run), and a shrinker (shrink). CLI: ``python -m translator.fuzz gen|run|shrink|one``."""
