"""The config file's sections, one module each: `session`, `tools`, `agents`, `providers` (`models`),
`channels`, `redaction` (`logging`), `ui`, `gateway`, `hooks`, `cron`, `store`."""
