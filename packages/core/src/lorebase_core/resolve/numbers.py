"""Numbers, comparisons and counts in a question (docs/resolve.md, "Numbers and comparisons").

A number stands next to what it measures: "risk score of 70 or more", "tier-1", "more than 400
pages", "published before 2000". Read before the names are matched, so that the number and its
comparison words count as matched:

- next to an Attribute (its name or alias, or for a year or date a word starting the name of a
  date Attribute: "published" for `published_on`), a number gives a `comparison` candidate whose
  value has the Attribute's canonical form; a number that does not fit the Attribute (a decimal on
  an integer, outside its `min`/`max`, a year on a number) gives none;
- before a Kind, a number or a count word ("a single supplier", "no risk flags", "at least 3
  loans") gives a `count` candidate: the number of Records of that Kind across a Relation;
- a number next to neither is not guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from lorebase_core.resolve.terms import Candidate, Entry, Level, Term
from lorebase_core.resolve.vocabulary import Vocabulary
from lorebase_core.schema.model import AttributeDef
from lorebase_core.values import ValueProblem, canonical, compare

PREFIX_OPS: dict[tuple[str, ...], str] = {
    ("at", "least"): "gte",
    ("minimum",): "gte",
    ("no", "less", "than"): "gte",
    ("not", "less", "than"): "gte",
    ("since",): "gte",
    ("over",): "gt",
    ("more", "than"): "gt",
    ("above",): "gt",
    ("greater", "than"): "gt",
    ("higher", "than"): "gt",
    ("after",): "gt",
    ("under",): "lt",
    ("less", "than"): "lt",
    ("fewer", "than"): "lt",
    ("below",): "lt",
    ("lower", "than"): "lt",
    ("before",): "lt",
    ("at", "most"): "lte",
    ("up", "to"): "lte",
    ("maximum",): "lte",
    ("no", "more", "than"): "lte",
    ("not", "more", "than"): "lte",
    ("until",): "lte",
    ("exactly",): "eq",
    ("only",): "eq",
    ("just",): "eq",
    ("equal", "to"): "eq",
    ("in",): "in",
    ("during",): "in",
}
"""Words before a number and the comparison they make; `in` takes a year or a date only."""
SUFFIX_OPS: dict[tuple[str, ...], str] = {
    ("or", "more"): "gte",
    ("or", "above"): "gte",
    ("or", "higher"): "gte",
    ("or", "greater"): "gte",
    ("or", "later"): "gte",
    ("and", "above"): "gte",
    ("and", "later"): "gte",
    ("or", "less"): "lte",
    ("or", "fewer"): "lte",
    ("or", "below"): "lte",
    ("or", "lower"): "lte",
    ("or", "earlier"): "lte",
    ("and", "below"): "lte",
}
"""Words after a number and the comparison they make (they win over a word before it)."""
COUNT_WORDS: dict[tuple[str, ...], tuple[str, int]] = {
    ("a", "single"): ("eq", 1),
    ("single",): ("eq", 1),
    ("without", "any"): ("eq", 0),
    ("without",): ("eq", 0),
    ("no",): ("eq", 0),
}
"""Words before a Kind that count its Records without a number."""
FILLERS = frozenset({"of", "is", "at", "with", "a", "an", "the", "equal", "to", "than"})
"""Words that may stand between an Attribute and its number ("risk score of 70")."""
MAX_FILLERS = 2
NUMBER_WORDS = {
    word: number
    for number, word in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    )
}
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_YEAR = re.compile(r"^[12]\d{3}$")
_JOINED = re.compile(r"^(.*[a-z])-(\d+(?:\.\d+)?)$")
"""An Attribute and its number written as one word: "tier-1"."""
PREFIX_SCORE = 0.9
"""A date Attribute named by a word starting its name ("published" for published_on)."""
_DATE_TYPES = ("date", "datetime")

RulesOf = Callable[[str, str], AttributeDef | None]


@dataclass(frozen=True)
class NumberFound:
    """A comparison or count candidate and the word positions its number words use."""

    candidate: Candidate
    used: tuple[int, ...]


def _match(keys: list[str], start: int, table: Mapping[tuple[str, ...], object]) -> int:
    """The length of the longest phrase of `table` starting at `start` (0: none)."""
    for size in (3, 2, 1):
        if start + size <= len(keys) and tuple(keys[start : start + size]) in table:
            return size
    return 0


def _match_before(keys: list[str], end: int, table: Mapping[tuple[str, ...], object]) -> int:
    """The length of the longest phrase of `table` ending just before `end` (0: none)."""
    for size in (3, 2, 1):
        if end - size >= 0 and tuple(keys[end - size : end]) in table:
            return size
    return 0


def _number_text(key: str) -> str | None:
    """The number a word spells, as digits ("70", "2.5", "2026-03-01", "three": "3")."""
    if _NUMBER.match(key) or _DATE.match(key):
        return key
    number = NUMBER_WORDS.get(key)
    return None if number is None else str(number)


def _in_bounds(rules: AttributeDef, value: str) -> bool:
    low, high = rules.bounds
    value_type = rules.value_type
    return (low is None or compare(value_type, value, low) >= 0) and (
        high is None or compare(value_type, value, high) <= 0
    )


def _date_range(text: str, base: str) -> tuple[str, str] | None:
    """A year or a date as the range [first, past) of its days, in the type's canonical form."""
    if _YEAR.match(text):
        first, past = date(int(text), 1, 1), date(int(text) + 1, 1, 1)
    elif _DATE.match(text):
        try:
            first = date.fromisoformat(text)
        except ValueError:
            return None
        past = first + timedelta(days=1)
    else:
        return None
    if base == "datetime":
        return f"{first.isoformat()}T00:00:00Z", f"{past.isoformat()}T00:00:00Z"
    return first.isoformat(), past.isoformat()


def typed_comparison(rules: AttributeDef, op: str, text: str) -> tuple[str, tuple[str, ...]] | None:
    """The comparison `op` with the number `text` on an Attribute, or None when it does not fit.

    Numbers take the Attribute's canonical form and must lie within its bounds; a year or a date
    on a date Attribute is a range of days: `in 2026` is `between` 2026-01-01 and 2027-01-01,
    `before 2027` is `lt 2027-01-01`, `after 2026` is `gte 2027-01-01`, `until 2026` is
    `lt 2027-01-01`.
    """
    base = rules.value_type.base
    if base in _DATE_TYPES:
        span = _date_range(text, base)
        if span is None:
            return None
        first, past = span
        if base == "date" and _DATE.match(text) and op != "in":
            return op, (text,)
        if op in ("in", "eq"):
            return "between", (first, past)
        return {"lt": "lt", "gte": "gte", "lte": "lt", "gt": "gte"}[op], (
            first if op in ("lt", "gte") else past,
        )
    if base not in ("integer", "decimal") or op == "in" or not _NUMBER.match(text):
        return None
    try:
        value = canonical(rules.value_type, text)
    except ValueProblem:
        return None  # a decimal on an integer, too many decimals or digits
    assert isinstance(value, str)
    return (op, (value,)) if _in_bounds(rules, value) else None


class _Reader:
    """One pass over the words of a text, finding numbers and count words."""

    def __init__(
        self,
        written: list[str],
        keys: list[str],
        vocabulary: Vocabulary,
        rules_of: RulesOf,
        scores: Mapping[Level, float],
    ) -> None:
        self.written, self.keys = written, keys
        self.vocabulary, self.rules_of, self.scores = vocabulary, rules_of, scores

    def entries(self, start: int, end: int, target: str) -> list[Entry]:
        if start < 0 or end > len(self.keys) or start >= end:
            return []
        key = " ".join(self.keys[start:end])
        return [entry for entry in self.vocabulary.lookup(key) if entry.term.target == target]

    def named_after(self, start: int, target: str) -> tuple[int, list[Entry]]:
        """The longest phrase starting at `start` that names a `target`: its end and entries."""
        for size in (3, 2, 1):
            found = self.entries(start, start + size, target)
            if found:
                return start + size, found
        return start, []

    def named_before(self, end: int, dated: bool) -> tuple[int, list[tuple[Entry, float]], bool]:
        """The Attribute named by the phrase ending at `end` (after up to two fillers).

        The last member says whether its words are only named here (a date Attribute named by a
        word starting its name): they count as the comparison's words then.
        """
        stop = end
        while stop > 0 and end - stop < MAX_FILLERS and self.keys[stop - 1] in FILLERS:
            stop -= 1
        for size in (3, 2, 1):
            found = self.entries(stop - size, stop, "attribute")
            if found:
                return stop - size, [(entry, self.scores[entry.level]) for entry in found], False
        if dated and stop > 0:
            word = self.keys[stop - 1]
            found = [
                entry
                for entry in self.vocabulary.entries
                if entry.term.target == "attribute"
                and entry.term.type in _DATE_TYPES
                and _shares_stem(word, entry.key.split()[0])
            ]
            if found:
                return stop - 1, [(entry, PREFIX_SCORE) for entry in found], True
        return end, [], False

    def comparisons(
        self, attributes: list[tuple[Entry, float]], op: str, text: str, span: tuple[int, int]
    ) -> list[Candidate]:
        found: list[Candidate] = []
        matched = " ".join(self.written[span[0] : span[1]])
        for entry, score in attributes:
            term = entry.term
            assert term.attribute is not None
            rules = self.rules_of(term.kind, term.attribute)
            typed = None if rules is None else typed_comparison(rules, op, text)
            if typed is None:
                continue
            how, values = typed
            comparison = Term("comparison", term.kind, term.attribute, term.type, values, op=how)
            why = f"{matched!r}: a number next to the Attribute {term.attribute!r} ({term.type})"
            found.append(Candidate(comparison, score, "number", matched, why, span))
        return found

    def count(
        self, kinds: list[Entry], op: str, number: int, span: tuple[int, int]
    ) -> list[Candidate]:
        matched = " ".join(self.written[span[0] : span[1]])
        return [
            Candidate(
                Term("count", entry.term.kind, values=(str(number),), op=op),
                self.scores[entry.level],
                "number",
                matched,
                f"{matched!r}: how many {entry.term.kind} Records, across a Relation",
                span,
            )
            for entry in kinds
        ]

    def at(self, index: int) -> list[NumberFound]:
        """What the word at `index` starts or holds, if it is a number or a count word."""
        key = self.keys[index]
        joined = _JOINED.match(key)
        if joined is not None:
            found = [
                (entry, self.scores[entry.level])
                for entry in self.vocabulary.lookup(normalize_joined(joined.group(1)))
                if entry.term.target == "attribute"
            ]
            size = _match(self.keys, index + 1, SUFFIX_OPS)
            op = SUFFIX_OPS.get(tuple(self.keys[index + 1 : index + 1 + size]), "eq")
            span = (index, index + 1 + size)
            return [
                NumberFound(candidate, tuple(range(*span)))
                for candidate in self.comparisons(found, op, joined.group(2), span)
            ]
        counted = _match(self.keys, index, COUNT_WORDS)
        if counted:
            end, kinds = self.named_after(index + counted, "kind")
            if not kinds:  # a word may qualify the Kind: "without open orders"
                end, kinds = self.named_after(index + counted + 1, "kind")
            if not kinds:
                return []
            op, number = COUNT_WORDS[tuple(self.keys[index : index + counted])]
            used = tuple(range(index, index + counted))
            return [NumberFound(c, used) for c in self.count(kinds, op, number, (index, end))]
        text = _number_text(key)
        return [] if text is None else self.around(index, text)

    def around(self, index: int, text: str) -> list[NumberFound]:
        """The comparison or count a number at `index` makes with the words around it."""
        before = _match_before(self.keys, index, PREFIX_OPS)
        after = _match(self.keys, index + 1, SUFFIX_OPS)
        op_start, op_end = index - before, index + 1 + after
        op = "eq"
        if after:
            op = SUFFIX_OPS[tuple(self.keys[index + 1 : op_end])]
        elif before:
            op = PREFIX_OPS[tuple(self.keys[op_start:index])]
        dated = bool(_YEAR.match(text) or _DATE.match(text))
        if op == "in" and not dated:
            op, op_start = "eq", index
        left_start, left, own = self.named_before(op_start, dated)
        right_end, right = self.named_after(op_end, "attribute")
        if left and (not right or op_start - left_start <= right_end - op_end):
            span = (left_start, op_end)
            fillers = range(left_start if own else left_start + 1, op_start)
            used = tuple(i for i in fillers if own or self.keys[i] in FILLERS) + tuple(
                range(op_start, op_end)
            )
            found = self.comparisons(left, op, text, span)
        elif right:
            span, used = (op_start, right_end), tuple(range(op_start, op_end))
            found = self.comparisons(
                [(entry, self.scores[entry.level]) for entry in right], op, text, span
            )
        else:
            kind_end, kinds = self.named_after(op_end, "kind")
            if not kinds or not text.isdigit() or op == "in":
                return []
            span, used = (op_start, kind_end), tuple(range(op_start, op_end))
            found = self.count(kinds, op, int(text), span)
        return [NumberFound(candidate, used) for candidate in found]


def normalize_joined(head: str) -> str:
    """The Attribute part of a joined word ("risk-score" of "risk-score-70") as compared."""
    return head.replace("-", " ")


def _shares_stem(word: str, name_word: str) -> bool:
    """Whether a word and the first word of a name share their stem ("published", "published")."""
    shorter = min(len(word), len(name_word))
    return shorter >= 3 and (word.startswith(name_word) or name_word.startswith(word))


def number_candidates(
    written: list[str],
    keys: list[str],
    vocabulary: Vocabulary,
    rules_of: RulesOf,
    scores: Mapping[Level, float],
) -> list[NumberFound]:
    """The comparison and count candidates of a text, left to right; each word used once."""
    reader = _Reader(written, keys, vocabulary, rules_of, scores)
    used: set[int] = set()
    found: list[NumberFound] = []
    for index in range(len(keys)):
        if index in used:
            continue
        # the candidates of one number (one per Attribute it may measure) share their words
        fresh = [hit for hit in reader.at(index) if not used.intersection(hit.used)]
        for hit in fresh:
            used.update(hit.used)
        found.extend(fresh)
    return found
