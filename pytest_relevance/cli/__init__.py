"""The `pytest-relevance` console script (`commands`), one command per subcommand; it may import any layer and none
imports it. `diff` measures the project at two revisions.
"""
