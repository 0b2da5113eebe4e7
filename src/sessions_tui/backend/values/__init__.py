"""The values the seam carries, each listed once: the engine's events and errors (`vocabulary`),
what the reads answer (`views`), the rows' accessors (`rows`)."""
