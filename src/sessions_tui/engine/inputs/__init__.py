"""What comes in from outside, made safe to hold: JSON text and its depth, lone surrogates, files someone named."""
