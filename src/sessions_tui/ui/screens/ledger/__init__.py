"""The send ledger's screens: every send of a session, and the thread between two sessions."""
