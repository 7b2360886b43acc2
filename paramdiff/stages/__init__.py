"""Pipeline stages between the parsed sources and what is rendered."""
