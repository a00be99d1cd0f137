"""`python -m pytest_relevance.cli.commands`: the console script."""

from __future__ import annotations

import sys

from pytest_relevance.cli.commands import main

sys.exit(main())
