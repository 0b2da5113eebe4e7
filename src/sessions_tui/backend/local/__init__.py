"""The local backend: the engine embedded in this process (`backend`), how it is opened and started
(`opening`), and a requester's description (`describe`)."""
