"""Run x Judgments -> Evaluation: every judged query scored and averaged per stratum (`evaluation`); the metrics that
read the corpus and the judgments (`diversity`, `set_answers`) and known-item `expectations`; what keeps those
numbers honest, computed once from the run and the judgments alone (`floors`: the constant-answer floor;
`diagnostics`: judged@k, coverage, hints); and the statistics of a change (`significance`, `ppi`).
"""
