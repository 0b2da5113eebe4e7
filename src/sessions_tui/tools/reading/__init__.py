"""The tools that read, and the reads the faces make through them: `sessions_list` (its row as a model in
`session_row`), `sessions_history`, `sessions_search`, `agents_list`, the faces' pages of sessions (`browse`) and
the usage a requester may see (`usage_view`)."""
