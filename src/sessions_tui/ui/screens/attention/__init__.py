"""The attention list: what needs the operator, newest first."""
