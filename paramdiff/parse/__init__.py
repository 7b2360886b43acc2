"""Bytes to rows.

Parameter text formats (params, Mission Planner, QGC, BlueOS), SDF models, local files.
"""
