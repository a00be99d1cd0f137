"""What every layer may use and that knows nothing of search: reading the files users write (YAML with line
numbers), file locks shared by runs and xdist workers, and git (blob ids as content fingerprints, inputs at a revision).
"""
