"""Parameter sweeps that find a better query without fooling the team: the space of a template's `{{name}}`
placeholders (`space`), how variants are picked within a budget (`strategies`: grid, seeded random, TPE), the seeded
tune / held-out split of the queries (`split`), the paired test corrected for every variant tried (`correction`:
max-T over the same sign flips, or Holm), and the sweep with its decision (`sweep`). No pytest and no rendering here;
`pytest-relevance tune` (cli.tune) opens the index once and measures each variant on it.
"""
