"""Search: what a text filter over sessions matches (the store holds the text index and its queries)."""
