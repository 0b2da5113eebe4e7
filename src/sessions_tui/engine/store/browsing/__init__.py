"""Pages of sessions: filtered, sorted and counted by the indexes the dashboard's table reads."""
