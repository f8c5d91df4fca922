"""Relevance scoring for horizontal search: an interface and a keyword scorer.

A :class:`Scorer` scores candidate texts against a query in one batch (so an embedding model can
plug in without per-text round trips). Scores are in ``[0, 1]``; the search stage keeps those at
or above its configured threshold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["KeywordScorer", "Scorer"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@runtime_checkable
class Scorer(Protocol):
    def score(self, query: str, texts: Sequence[str], *, min_term_length: int) -> list[float]: ...


class KeywordScorer:
    """The share of the query's distinct terms (``min_term_length`` characters or more) that
    occur as words in the text, case-insensitively."""

    def score(self, query: str, texts: Sequence[str], *, min_term_length: int) -> list[float]:
        terms = {t for t in _WORD.findall(query.lower()) if len(t) >= min_term_length}
        if not terms:
            return [0.0] * len(texts)
        scores = []
        for text in texts:
            words = set(_WORD.findall(text.lower()))
            scores.append(len(terms & words) / len(terms))
        return scores
