"""The session tools, one implementation for the command line, the dashboard and agents: how a tool is
declared and called (`calling/`), a requester's point of view (`requester/`), the tools that read
(`reading/`) and those that act (`acting/`)."""
