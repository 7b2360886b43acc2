"""What the pipeline found, as lines.

Tables, the derived parameter file, the report, and the sinks that write or check them.
"""
