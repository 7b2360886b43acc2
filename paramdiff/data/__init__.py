"""Package data: tables read at run time (param_types.tsv: declared MAVLink parameter types;
renames.yaml: parameters ArduPilot renamed between firmware versions, with their sources)."""
