"""How a tool is declared and called: its argument reading and errors (`base`), the schema offered to
models (`schema`), every tool by name and the one way to call it (`registry`), and a running session's
model calling them (`host`)."""
