"""The engine's functions a face uses to read and show as the engine does, handed on by concept:
keys, commands, inputs, matching, redaction, export, OpenClaw state, the state directory."""
