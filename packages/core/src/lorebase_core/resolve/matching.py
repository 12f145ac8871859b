"""Resolving a text: phrases of one to three words tried longest first, level by level."""

from __future__ import annotations

from dataclasses import dataclass

from lorebase_core.resolve.numbers import number_candidates
from lorebase_core.resolve.text import identifying_words, normalize, words
from lorebase_core.resolve.vocabulary import Candidate, Level, Term, Vocabulary
from lorebase_core.schema import Schema
from lorebase_core.schema.model import AttributeDef

MAX_PHRASE_WORDS = 3
SCORES: dict[Level, float] = {"exact": 1.0, "synonym": 0.95, "similar": 0.9, "embedding": 0.8}
SIMILAR_MIN_CHARS = 4  # shorter words match too much by spelling alone
SIMILAR_PER_PHRASE = 3
SIMILAR_SPREAD = 0.1  # close spellings within this much of the closest one are offered too
UNKNOWN_REASON = "term unknown in this Domain"


@dataclass(frozen=True)
class TextResolution:
    """What `resolve_text` found.

    `unknown` are the runs of consecutive unmatched words (normalized), as the answer lists them;
    `recordable` the same runs without the words that may identify someone or something (below),
    which are all a store may keep of the text.
    """

    candidates: tuple[Candidate, ...]
    unmatched: tuple[str, ...]
    unknown: tuple[str, ...]
    truncated: bool
    recordable: tuple[str, ...] = ()


def _spans(count: int) -> list[tuple[int, int]]:
    """Phrases as (start, end) word positions: longest first, then left to right."""
    return [
        (start, start + size)
        for size in range(min(MAX_PHRASE_WORDS, count), 0, -1)
        for start in range(count - size + 1)
    ]


def resolve_text(
    text: str,
    vocabulary: Vocabulary,
    *,
    min_similarity: float,
    max_candidates: int,
    schema: Schema | None = None,
) -> TextResolution:
    """The candidates for the phrases of `text`, the words left unmatched and unknown phrases.

    With the `schema`, numbers and count words are read first (`numbers.py`): their words are
    matched and are not tried as names.
    """
    written = words(text)
    keys = [normalize(word) for word in written]
    covered = [False] * len(written)
    best: dict[Term, Candidate] = {}

    def offer(candidate: Candidate) -> None:
        known = best.get(candidate.term)
        if known is None or candidate.score > known.score:
            best[candidate.term] = candidate

    if schema is not None:

        def rules_of(kind: str, attribute: str) -> AttributeDef | None:
            return schema.kinds[kind].attributes.get(attribute)

        for number in number_candidates(written, keys, vocabulary, rules_of, SCORES):
            offer(number.candidate)
            for position in number.used:
                covered[position] = True

    for level_pass in ("names", "similar"):
        for start, end in _spans(len(written)):
            if any(covered[start:end]):
                continue
            key = " ".join(keys[start:end])
            matched = " ".join(written[start:end])
            if level_pass == "names":
                found = [
                    Candidate(
                        entry.term, SCORES[entry.level], entry.level, matched, span=(start, end)
                    )
                    for entry in vocabulary.lookup(key)
                ]
            elif len(key.replace(" ", "")) >= SIMILAR_MIN_CHARS:
                close = vocabulary.similar(key, min_similarity)
                found = [
                    Candidate(
                        entry.term,
                        round(SCORES["similar"] * value, 4),
                        "similar",
                        matched,
                        span=(start, end),
                    )
                    for value, entry in close[:SIMILAR_PER_PHRASE]
                    if value >= close[0][0] - SIMILAR_SPREAD
                ]
            else:
                found = []
            for candidate in found:
                offer(candidate)
            if found:
                covered[start:end] = [True] * (end - start)
    ranked = sorted(best.values(), key=lambda item: (-item.score, item.term.order))
    unmatched = list(dict.fromkeys(w for w, done in zip(written, covered, strict=True) if not done))
    identifying = identifying_words(text)
    return TextResolution(
        tuple(ranked[:max_candidates]),
        tuple(unmatched),
        tuple(_unknown_phrases(keys, covered)),
        len(ranked) > max_candidates,
        # an identifying word ends a run like a matched one, and is left out
        tuple(_unknown_phrases(keys, [a or b for a, b in zip(covered, identifying, strict=True)])),
    )


def _unknown_phrases(keys: list[str], covered: list[bool]) -> list[str]:
    """Runs of consecutive unmatched words (normalized), each once, in order."""
    runs: list[str] = []
    current: list[str] = []
    for key, done in [*zip(keys, covered, strict=True), ("", True)]:
        if done:
            if current:
                runs.append(" ".join(current))
            current = []
        else:
            current.append(key)
    return list(dict.fromkeys(runs))
