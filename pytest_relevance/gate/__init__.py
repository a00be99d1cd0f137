"""The gate: the committed baseline file (`baseline_file`), how rankings changed (`churn`, `ranking_diff`) and the
decision for one relevance test (`verdict`: `decide`, a pure function to a frozen Verdict). No pytest and no
rendering here.
"""
