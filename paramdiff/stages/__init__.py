"""The pipeline's stages, each a function of values.

Classify, compare, derive, layers, channels, validate, history.
"""
