"""Resolving a text: phrases of one to three words tried longest first, pass by pass."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from lorebase_core.resolve.numbers import number_candidates
from lorebase_core.resolve.terms import Candidate, Level, Term
from lorebase_core.resolve.text import (
    STOP_WORDS,
    identifying_words,
    is_noise,
    normalize,
    stem_key,
    words,
)
from lorebase_core.resolve.vocabulary import Vocabulary
from lorebase_core.schema import Schema
from lorebase_core.schema.model import AttributeDef

MAX_PHRASE_WORDS = 3
SCORES: dict[Level, float] = {
    "exact": 1.0,
    "synonym": 0.95,
    "stem": 0.85,
    "description": 0.6,
    "similar": 0.9,
    "embedding": 0.8,
}
PASSES = ("names", "stems", "similar")
"""Names and aliases first, then word stems and descriptions, then close spellings."""
MAX_PER_PHRASE = 3
"""Candidates one phrase gives at most (the setting read.resolve.max_candidates_per_phrase)."""
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


def _found(
    level_pass: str, vocabulary: Vocabulary, written: list[str], key: str, min_similarity: float
) -> list[Candidate]:
    """The candidates of one phrase at one pass (without their span)."""
    matched = " ".join(written)
    if level_pass == "names":
        noise = is_noise(written)
        return [
            Candidate(entry.term, SCORES[entry.level], entry.level, matched, entry.why)
            for entry in vocabulary.lookup(key)
            # a stop word or two-letter word names a value only as it is stored ("AT", not "at")
            if not (noise and entry.term.target == "value" and matched not in entry.term.values)
        ]
    if all(word in STOP_WORDS for word in key.split()):
        return []
    if level_pass == "stems":
        return [
            Candidate(
                entry.term,
                SCORES[entry.level],
                entry.level,
                matched,
                f"{entry.why}, by its word stem {stem_key(key, content_only=True)!r}",
            )
            for entry in vocabulary.stemmed(key)
            if entry.level == "stem" or len(written) == 1
        ]
    parts = key.split()
    if len(key.replace(" ", "")) < SIMILAR_MIN_CHARS or {parts[0], parts[-1]} & STOP_WORDS:
        return []  # nor "priced in": the spelling of its stop word is no evidence
    close = vocabulary.similar(key, min_similarity)
    return [
        Candidate(
            entry.term,
            round(SCORES["similar"] * value, 4),
            "similar",
            matched,
            f"spelled like {entry.key!r} ({entry.why}), trigram similarity {value:.2f}",
        )
        for value, entry in close[:SIMILAR_PER_PHRASE]
        if value >= close[0][0] - SIMILAR_SPREAD
    ]


def _quieter(found: list[Candidate], max_per_phrase: int) -> list[Candidate]:
    """The best `max_per_phrase` candidates of a phrase, one per Term.

    A phrase that names a Kind or a Relation does not also name values at a lower score; one that
    names a Kind does not also name a Relation ending at it by that Kind's name ("purchase
    orders" is the Kind PurchaseOrder, not also the Relation purchase_orders of Part).
    """
    best: dict[Term, Candidate] = {}
    for candidate in found:
        known = best.get(candidate.term)
        if known is None or candidate.score > known.score:
            best[candidate.term] = candidate
    named = [c.score for c in best.values() if c.term.target in ("kind", "relation")]
    kinds = {c.term.kind: c.score for c in best.values() if c.term.target == "kind"}
    kept = [
        c
        for c in best.values()
        if not (named and c.score < max(named))
        and not (c.term.target == "relation" and _ends_at_named_kind(c, kinds))
    ]
    kept.sort(key=lambda item: (-item.score, item.term.order))
    return kept[:max_per_phrase]


def _ends_at_named_kind(relation: Candidate, kinds: dict[str, float]) -> bool:
    """Whether a Kind the same phrase names, as well or better, is at one end of the Relation."""
    ends = (relation.term.kind, relation.term.to_kind)
    return any(kinds.get(str(end), -1.0) >= relation.score for end in ends)


def resolve_text(
    text: str,
    vocabulary: Vocabulary,
    *,
    min_similarity: float,
    max_candidates: int,
    max_per_phrase: int = MAX_PER_PHRASE,
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
    named_at: dict[int, set[str]] = {}
    """The Kinds named at each word position, by the Kind or by one of its Attributes."""
    if schema is not None:
        _read_numbers(schema, written, keys, vocabulary, best, covered, named_at)
    for level_pass in PASSES:
        for start, end in _spans(len(written)):
            if any(covered[start:end]):
                continue
            key = " ".join(keys[start:end])
            found = _found(level_pass, vocabulary, written[start:end], key, min_similarity)
            for candidate in _quieter(found, max_per_phrase):
                if candidate.term.target in ("kind", "attribute"):
                    for position in range(start, end):
                        named_at.setdefault(position, set()).add(candidate.term.kind)
                known = best.get(candidate.term)
                if known is None or candidate.score > known.score:
                    best[candidate.term] = replace(candidate, span=(start, end))
            if found:
                covered[start:end] = [True] * (end - start)
    ranked = sorted(
        _attached(best.values(), named_at), key=lambda item: (-item.score, item.term.order)
    )
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


def _read_numbers(
    schema: Schema,
    written: list[str],
    keys: list[str],
    vocabulary: Vocabulary,
    best: dict[Term, Candidate],
    covered: list[bool],
    named_at: dict[int, set[str]],
) -> None:
    """Numbers and count words, read before names: their candidates join `best`, their words
    are `covered`, and the Kinds they measure are named at those words."""

    def rules_of(kind: str, attribute: str) -> AttributeDef | None:
        return schema.kinds[kind].attributes.get(attribute)

    for number in number_candidates(written, keys, vocabulary, rules_of, SCORES):
        known = best.get(number.candidate.term)
        if known is None or number.candidate.score > known.score:
            best[number.candidate.term] = number.candidate
        for position in number.used:
            covered[position] = True
            named_at.setdefault(position, set()).add(number.candidate.term.kind)


def _attached(candidates: Iterable[Candidate], named_at: dict[int, set[str]]) -> list[Candidate]:
    """The candidates without the values of a phrase on Kinds other than the one it stands next to.

    A phrase whose values are on several Kinds, right before or after words naming one of those
    Kinds (by its name or an Attribute's), keeps to that Kind: in "open purchase orders", 'open' is
    the status of PurchaseOrder, not of RiskFlag; in "Polish suppliers", the country of Supplier,
    not of Plant; in "high risk", a value of Supplier, whose risk_score has the alias "risk".
    """
    listed = list(candidates)
    on_kinds: dict[tuple[int, int], set[str]] = {}
    for candidate in listed:
        if candidate.term.target == "value":
            on_kinds.setdefault(candidate.span, set()).add(candidate.term.kind)
    kept_kinds: dict[tuple[int, int], set[str]] = {}
    for (start, end), kinds in on_kinds.items():
        near = named_at.get(start - 1, set()) | named_at.get(end, set())
        if len(kinds) > 1 and kinds & near:
            kept_kinds[(start, end)] = kinds & near
    return [
        candidate
        for candidate in listed
        if not (
            candidate.term.target == "value"
            and candidate.span in kept_kinds
            and candidate.term.kind not in kept_kinds[candidate.span]
        )
    ]


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
