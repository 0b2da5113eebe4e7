"""The demo: its state directory's sessions and its config file."""
