"""Model clients: the offline demo model and OpenAI-compatible chat completions."""
