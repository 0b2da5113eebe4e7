"""A requester's point of view: its context and the visibility guard (`access`), from what it typed to a stored
session (`resolution`), whether it may operate on a session (`operating`), and why a refusal (`explain`)."""
