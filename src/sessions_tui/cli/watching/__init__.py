"""How `sessions-tui watch` sees and says what happens: the store's changes, each happening as a line."""
