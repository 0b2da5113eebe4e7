"""Sub-agents: the registry of spawned runs, their records and trees, their announce, and their
control (kill, steer) across processes."""
