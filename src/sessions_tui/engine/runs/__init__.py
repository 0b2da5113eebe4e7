"""Runs: a session's queued model turns, what a run does, whether its process lives, and what a stopped one left."""
