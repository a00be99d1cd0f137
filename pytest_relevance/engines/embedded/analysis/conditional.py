"""The `condition` token filter: Lucene's ConditionalTokenFilter with Elasticsearch's script predicate.

ScriptedConditionTokenFilterFactory wraps its `filter` chain in a ConditionalTokenFilter whose shouldFilter() runs
the script on each input token. The wrapped chain never sees the whole stream: each run of consecutive accepted
tokens goes through it as a stream of its own (the delegate is reset before the run and ended at the first
rejected token), and a rejected token passes unchanged. So a shingle filter inside makes shingles within a run,
never across a rejected token, and the positions flow as ConditionalTokenFilter moves them:

- a run whose first token is stacked (increment 0) starts the delegate at increment 1, and its first output token
  (or the rejected token after it, when the chain removed the whole run) gets one less;
- the position increment the chain leaves at the end of a run (tokens it removed there) moves to the rejected token
  that ends the run; at the end of the stream it is the stream's end increment, replacing the input's when the last
  token was accepted (OneTimeWrapper.end() resets the attributes before the chain adds its own).

The script sees the input token's attributes, before the chain changes them, and its position counted over every
input token from -1 (AnalysisPredicateScript.Token.updatePosition, called in shouldFilter).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytest_relevance.engines.embedded.analysis.stream import MapFilter, StreamFilter, Tok
from pytest_relevance.engines.embedded.painless import (
    FELL_OFF,
    AnalysisToken,
    Context,
    PainlessError,
    Program,
    java_type,
)

__all__ = ["condition"]

Stages = tuple[tuple[Callable[..., tuple[list[Tok], int]], bool], ...]


def condition(
    predicate: Program,
    chain: Sequence[MapFilter | StreamFilter],
    stages: Callable[[Sequence], Stages],
    failed: Callable[[PainlessError, str], Exception],
) -> StreamFilter:
    """The filter for a compiled predicate and the filters it wraps; `stages` turns filters into stream stages
    (the analyzer's own grouping of per-term filters), so the wrapped chain runs exactly as it would unwrapped;
    `failed(error, term)` is the error to raise when the script fails on a token."""
    inner = stages(chain)

    def accepts(tokens: list[Tok]) -> list[bool]:
        ctx = Context({})
        position, out = -1, []
        for tok in tokens:
            position += tok.inc
            ctx.token = AnalysisToken(tok.term, position, tok.inc, tok.plen, tok.start, tok.end, tok.kw)
            try:
                result = predicate.run(ctx)
            except PainlessError as exc:
                raise failed(exc, tok.term) from None
            if result is FELL_OFF:
                result = False  # the auto-return of a boolean method without a value
            if not isinstance(result, bool):
                raise failed(PainlessError(f"Cannot cast [{java_type(result)}] to [boolean]."), tok.term)
            out.append(result)
        return out

    def delegate(run: list[Tok], final: int) -> tuple[list[Tok], int, bool]:
        """The chain over one run: its tokens, its end increment, and whether a position is still owed."""
        adjust = run[0].inc == 0
        if adjust:
            run[0].inc = 1
        tokens, end_inc = run, 0
        for stage, wants_final in inner:
            tokens, end_inc = stage(tokens, end_inc, final) if wants_final else stage(tokens, end_inc)
        if adjust and tokens:
            tokens[0].inc -= 1
            adjust = False
        return tokens, end_inc, adjust

    def run_filter(tokens: list[Tok], end_inc: int, final: int) -> tuple[list[Tok], int]:
        flags = accepts(tokens)
        out: list[Tok] = []
        run: list[Tok] = []
        for tok, accepted in zip(tokens, flags, strict=True):
            if accepted:
                run.append(tok)
                continue
            if run:
                emitted, gap, owed = delegate(run, tok.end)
                out.extend(emitted)
                tok.inc += gap - owed
                run = []
            out.append(tok)
        if run:
            emitted, end_inc, _ = delegate(run, final)
            out.extend(emitted)
        return out, end_inc

    made = StreamFilter(run_filter, end_offset=True)
    made.disables_graph = any(isinstance(f, StreamFilter) and f.disables_graph for f in chain)
    return made
