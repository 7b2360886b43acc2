"""Package data: tables read at run time (param_types.tsv: declared MAVLink parameter types)."""
