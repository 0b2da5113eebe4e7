"""The session tools, one implementation for the command line, the dashboard and agents."""
