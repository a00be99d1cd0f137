"""The gate: the committed baseline file (`baseline_file`), how rankings changed (`churn`, `ranking_diff`), the
decision for one relevance test (`verdict`: `decide`, a pure function to a frozen Verdict) and the report model every
renderer reads (`report`: plain data, the JSON report's schema). No pytest and no rendering here.
"""
