"""Metrics, pure: a ranking (or a set answer) and the grades of one query in, a number out, exactly as trec_eval
computes it (`ranking`), beyond relevance (`diversity`: diversity, freshness, exposure, novelty) and set answers
(`set_answers`). Nothing here reads a file or knows a test.
"""
