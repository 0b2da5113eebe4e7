"""Sessions: their keys, who may talk to whom, and why something may not go into one."""
