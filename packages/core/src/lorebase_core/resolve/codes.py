"""Everyday words for stored codes: country names and demonyms for ISO 3166-1 alpha-2 codes,
currency names for ISO 4217 codes (docs/resolve.md, "Standard vocabularies").

The words come from the Unicode CLDR data of `babel` (English): territory names ("Poland"), the
names of a territory's official languages whose most likely territory it is ("Polish" for PL,
"Swedish" for SE, which in English are the demonyms too), and currency names in the singular and
plural ("Swedish Krona", "Swedish kronor") with their last word ("krona", "kronor", "euro").
`_COUNTRY_WORDS` adds the few everyday words CLDR has no name for.

They apply only to an Attribute whose values are such codes: declared with `vocabulary:` in the
schema, or detected (every indexed value is a known code of the standard, at least
`MIN_DETECTED_CODES` distinct ones); never to free text. Only codes that are indexed (stored, or
declared enum values) become candidates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache

from babel import Locale
from babel.core import get_global
from babel.languages import get_official_languages
from babel.numbers import get_currency_name

from lorebase_core.resolve.terms import Entry, Term
from lorebase_core.resolve.text import normalize
from lorebase_core.schema.model import AttributeDef, Standard

MIN_DETECTED_CODES = 3
"""Distinct indexed values an Attribute needs before its values are taken for codes unasked."""
_PATTERNS: dict[Standard, re.Pattern[str]] = {
    "iso3166": re.compile(r"^[A-Z]{2}$"),
    "iso4217": re.compile(r"^[A-Z]{3}$"),
}
_TITLES: dict[Standard, str] = {
    "iso3166": "an ISO 3166-1 country code",
    "iso4217": "an ISO 4217 currency code",
}
_NOT_COUNTRIES = frozenset({"EU", "EZ", "UN", "QO", "XA", "XB", "XK", "ZZ"})
"""Two-letter CLDR territories that are not ISO 3166-1 countries."""
_COUNTRY_WORDS: dict[str, tuple[str, ...]] = {
    # Demonyms and common names CLDR has no name for (its language names give most demonyms),
    # and the two whose language's most likely territory is another country (English: US,
    # Portuguese: BR). Two-letter forms ("UK") are left out: they match only as stored.
    "AT": ("Austrian",),
    "AU": ("Australian",),
    "BE": ("Belgian",),
    "BR": ("Brazilian",),
    "CA": ("Canadian",),
    "CH": ("Swiss",),
    "CZ": ("Czech Republic",),
    "GB": ("British", "English", "Britain", "Great Britain"),
    "IN": ("Indian",),
    "MX": ("Mexican",),
    "NL": ("Holland",),
    "PT": ("Portuguese",),
    "TR": ("Turkey", "Turkish"),
    "US": ("American", "America", "USA"),
}


@cache
def _country_words() -> dict[str, tuple[tuple[str, str], ...]]:
    """Per country code, its words and what each is ("the name of", "the demonym of")."""
    english = Locale("en")
    likely: Mapping[str, str] = get_global("likely_subtags")
    taken = {word for words in _COUNTRY_WORDS.values() for word in words}
    found: dict[str, tuple[tuple[str, str], ...]] = {}
    for code, name in english.territories.items():
        if not _PATTERNS["iso3166"].match(code) or code in _NOT_COUNTRIES:
            continue
        words = [(name, f"the name of {code}")]
        for language in get_official_languages(code, de_facto=True):
            spoken = english.languages.get(language)
            if spoken and spoken not in taken and likely.get(language, "").endswith(f"_{code}"):
                words.append((spoken, f"the demonym of {name} ({code})"))
        words += [(word, f"a name of {name} ({code})") for word in _COUNTRY_WORDS.get(code, ())]
        found[code] = tuple(words)
    return found


@cache
def _currency_words() -> dict[str, tuple[tuple[str, str], ...]]:
    """Per currency code, its names: singular, plural, and their last words."""
    found: dict[str, tuple[tuple[str, str], ...]] = {}
    for code, name in Locale("en").currencies.items():
        if not _PATTERNS["iso4217"].match(code):
            continue
        plural = get_currency_name(code, count=2, locale="en")
        forms = dict.fromkeys((name, plural, name.split()[-1], plural.split()[-1]))
        found[code] = tuple((form, f"a name of the {name} ({code})") for form in forms)
    return found


def standard_words(standard: Standard) -> dict[str, tuple[tuple[str, str], ...]]:
    """The codes of a standard with their everyday words, each with what it is."""
    return _country_words() if standard == "iso3166" else _currency_words()


def standard_of(rules: AttributeDef, counts: Mapping[str, int]) -> Standard | None:
    """The standard an Attribute's values are codes of: declared, or detected from its values."""
    if rules.vocabulary is not None:
        return rules.vocabulary
    if len(counts) < MIN_DETECTED_CODES:
        return None
    for standard in ("iso3166", "iso4217"):
        if all(value in standard_words(standard) for value in counts):
            return standard
    return None


def code_entries(
    kind: str, attribute: str, rules: AttributeDef, counts: Mapping[str, int]
) -> Iterator[Entry]:
    """`synonym` entries for the everyday words of the indexed codes of an Attribute.

    A word naming several indexed codes ("dollar": USD, CAD) names them together (an `in`).
    """
    standard = standard_of(rules, counts)
    if standard is None:
        return
    known = standard_words(standard)
    codes: dict[str, list[str]] = {}
    whys: dict[str, list[str]] = {}
    written: dict[str, str] = {}
    for code in sorted(counts):
        for word, what in known.get(code, ()):
            key = normalize(word)
            written.setdefault(key, word)
            codes.setdefault(key, []).append(code)
            whys.setdefault(key, []).append(what)
    for key, named in codes.items():
        records = sum(counts[code] for code in named)
        term = Term("value", kind, attribute, rules.type, tuple(named), records)
        why = f"{_TITLES[standard]}: {written[key]!r} is {' and '.join(whys[key])}"
        yield Entry(key, term, "synonym", why)
