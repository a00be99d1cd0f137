"""Online estimates from click logs: what a ranking change would do to users' clicks, before it ships.

Between evaluation and the gate. `logged` turns a UBI log (read and validated by `judgments.clicks`) into sessions:
the list each user was shown and what they clicked; `click_model` fits the position-based model to them;
`estimators` estimates the click value of a baseline and a candidate ranking and of their difference (DM, IPS,
SNIPS, DR, simulated team-draft interleaving), each with its support and a query-clustered bootstrap interval;
`simulator` makes click logs with a known truth (PBM, cascade and DBN users) and computes that truth exactly.
docs/online.md says which estimator to trust when, with the numbers `benchmarks/bench_online.py` measured.
"""
