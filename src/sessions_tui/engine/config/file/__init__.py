"""The config as a file: where it is (`paths`), reading and parsing it (`loading`), and its one-line
errors (`errors`)."""
