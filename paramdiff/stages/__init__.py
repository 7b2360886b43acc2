"""Pipeline stages: classify, compare, derive, layers, channels, geometry."""
