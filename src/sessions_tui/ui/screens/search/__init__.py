"""The Search view: matching messages, best first, opened at their place."""
