"""The tools that act: `sessions_send`, `sessions_spawn` (its arguments in `spawn_args`) and `subagents`
(list, kill, steer)."""
