"""What a face reads from an OpenClaw gateway: its session roster and listing, open transcripts, run
events, live status, usage, and its answers shaped as our session tools'."""
