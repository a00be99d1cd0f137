"""Every source of grades, read into the one `Judgments` model (`model`): the project's own YAML/CSV, TREC qrels
(`trec`), other tools' formats (`formats`), click logs (`clicks`), the pool a rater fills in (`pool`), a model judge
(`judge`) and its agreement with people (`agreement`), and where each grade came from (`provenance`).
"""
