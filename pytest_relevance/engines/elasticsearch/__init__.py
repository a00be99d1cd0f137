"""The Elasticsearch (and OpenSearch) engine through the official client (`engine`), and the server's `_explain` output
mapped onto the engine-neutral score tree (`explain`).
"""
