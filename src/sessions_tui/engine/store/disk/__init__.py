"""The state database's files on disk: their modes, the damage finding, the transcript mirrors."""
