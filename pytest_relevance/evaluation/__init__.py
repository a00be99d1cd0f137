"""Run x Judgments -> Evaluation: every judged query scored and averaged per stratum (`evaluation`), and what keeps
those numbers honest, computed once from the run and the judgments alone: floors, judged@k, coverage, hints
(`diagnostics`).
"""
