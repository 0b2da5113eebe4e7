"""The config's model machinery: the strict base and shared field types (`base`), the clamps and
fallbacks that turn bad values into warnings (`rules`), and secrets a value may point at (`secret_refs`)."""
