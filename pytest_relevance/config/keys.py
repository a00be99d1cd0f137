"""The relevance_* ini keys, each with its help and default: what the plugin registers with pytest (each also as a
flag --relevance-...), and what settings.read checks. Plain data, imported on every pytest run: nothing else here."""

from __future__ import annotations

#: ini key -> (help, default). Each is also a command-line flag --relevance-...
SETTINGS: dict[str, tuple[str, str]] = {
    "relevance_judgments": (
        "judged queries: .yaml, .csv, or TREC qrels (with relevance_topics)",
        "fixtures/judgments.yaml",
    ),
    "relevance_topics": ("topics file for TREC qrels judgments: qid<TAB>text[<TAB>stratum]", ""),
    "relevance_corpus": ("fixture corpus: NDJSON, JSON array or YAML list", "fixtures/corpus.ndjson"),
    "relevance_index_config": ("index config: an Elasticsearch create-index body (YAML/JSON)", "fixtures/index.yaml"),
    "relevance_query": ("query template: an Elasticsearch search body with {{query}}", "fixtures/query.yaml"),
    "relevance_baseline": ("the committed baseline file", "relevance-baseline.json"),
    "relevance_metrics": ("metrics to score and gate, e.g. 'ndcg@10 mrr@10 recall@100'", "ndcg@10 mrr@10 recall@100"),
    "relevance_tolerance": ("allowed drop: '0.005', or with overrides '0.005 tail=0.02 ndcg@10=0.01'", "0.005"),
    "relevance_now": ("the frozen instant every relevance test runs at (ISO 8601)", "2026-01-15T12:00:00Z"),
    "relevance_engine": ("search engine for relevance_index: embedded or elasticsearch", "embedded"),
    "relevance_es_url": ("Elasticsearch URL (also read from RELEVANCE_ES_URL)", ""),
    "relevance_es_api_key": ("Elasticsearch API key (also RELEVANCE_ES_API_KEY)", ""),
    "relevance_es_user": ("Elasticsearch basic auth user (also RELEVANCE_ES_USER)", ""),
    "relevance_es_password": ("Elasticsearch basic auth password (also RELEVANCE_ES_PASSWORD)", ""),
    "relevance_es_ca_certs": ("CA certificate file for Elasticsearch TLS (also RELEVANCE_ES_CA_CERTS)", ""),
    "relevance_es_batch": ("queries per msearch request", "100"),
    "relevance_es_concurrency": ("msearch requests in flight at once", "4"),
    "relevance_id_field": ("the document id field of the corpus", "id"),
    "relevance_synonyms_sets": (
        "the embedded engine's synonyms sets: 'id=path ...', each a file of Solr-format rules (synonyms_set: id)",
        "",
    ),
    "relevance_min_judged": ("warn when judged@k of a stratum falls below this share", "0.8"),
    "relevance_floor_margin": ("warn when a value is within this of its constant-answer floor", "0.05"),
    "relevance_alpha": ("if set (e.g. 0.05), fail only on drops beyond tolerance that are also significant", ""),
    "relevance_alpha_scope": (
        "what relevance_alpha bounds: test (the chance of any false regression verdict of a test, over all its "
        "strata x metrics) or comparison (each stratum x metric on its own)",
        "test",
    ),
    "relevance_paths": ("globs: with --relevance-changed-since, run relevance tests only if one of these changed", ""),
    "relevance_snapshot_depth": ("ranked ids per query kept in the baseline (at most the deepest cut-off)", "10"),
    "relevance_max_churn": ("if set (e.g. 0.2), fail when 1 - mean RBO vs the baseline's rankings exceeds it", ""),
    "relevance_max_cost": (
        "if set (e.g. 'docs_scored=1.5x p95'), count each query's work and fail when a stratum's median or p95 of a "
        "counter rises beyond that factor of the baseline's",
        "",
    ),
    "relevance_clicks_log": (
        "UBI click logs (NDJSON): every relevance test estimates its run's change in clicks against the baseline's "
        "rankings (DR)",
        "",
    ),
    "relevance_online_tolerance": (
        "if set (e.g. 0.02), fail when the estimated clicks drop by more than this share (the 95% interval's upper "
        "bound below minus it) where the log supports the estimate",
        "",
    ),
    "relevance_online_min_support": (
        "the least share of a run's top-k slots the click log must have shown; below it: not estimable",
        "0.5",
    ),
    "relevance_unused": ("baseline entries no test collected: warn, or fail the run", "warn"),
    "relevance_max_judgment_age": ("if set (e.g. 180d), warn of grades dated longer ago than this before now", ""),
    "relevance_judge_agreement": ("`pytest-relevance agreement --format json` output: the judge's kappa", ""),
    "relevance_human_judgments": (
        "people's grades of the judge-graded documents of a sample of the queries (a judgments file): the "
        "judge-corrected (PPI) estimates beside the plain numbers",
        "",
    ),
    "relevance_judge_correction": (
        "none (report the judge-corrected estimates) or ppi (gate on them where they apply)",
        "none",
    ),
    "relevance_tune": ("`pytest-relevance tune`'s space: 'title_boost=1..5 step 0.5; tie=0,0.3,0.7; msm=1,2,3'", ""),
}
