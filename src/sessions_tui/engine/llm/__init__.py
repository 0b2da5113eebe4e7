"""Model clients: the offline demo model and OpenAI-compatible chat completions, their wire format,
retries and streaming, which model a run uses, and what a turn cost."""
