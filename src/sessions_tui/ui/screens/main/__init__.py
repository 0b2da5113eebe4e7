"""The main screen: the session table, the transcript, the composer and spawn panes, their keys, and
the operator's operations on sessions."""
