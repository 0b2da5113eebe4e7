"""The dashboard's widgets."""
