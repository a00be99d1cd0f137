"""The gate: the committed baseline file (`baseline_file`: read, written atomically under a lock), its entries
(`entry`: made from an evaluation, checked, and what differs from today's run), an entry against today's evaluation
(`compare`), how rankings changed (`churn`, `ranking_diff`), the decision for one relevance test (`verdict`: `decide`,
a pure function to a frozen Verdict, with `decisions` for its significance), the report model every renderer reads
(`report`) and the one check every caller runs (`pipeline`). No pytest and no rendering here.
"""
