"""Grounding the words of a question in a Domain's schema and stored values (docs/resolve.md).

Pure: the store counts the indexed values (`lorebase_store.reads.value_index`), Keeper serves the answer.
A text is cut into words; phrases of one to three consecutive words are tried, longest first, at
these levels:

- `exact` (score 1.0): the name of a Kind, an Attribute or a Relation (or its inverse name), or
  an indexed value;
- `synonym` (score 0.95): an alias of a Kind, an Attribute or a Relation, or a `value_aliases`
  entry of an Attribute (the "schema aliases" level);
- `stem` (0.85) and `description` (0.6): a Relation by the word stems of its names, or by a word
  of its description;
- `similar` (score 0.9 x trigram similarity): a close spelling of any name, alias or value, for
  words the other levels left over.

Before them, numbers and count words are read next to the Attribute or Kind they measure
(`numbers.py`: `comparison` and `count` candidates, level `number`); `query_suggestions.py`
composes POST /query bodies from the candidates.

Names and phrases are compared normalized: camel case and underscores split into words, case
folded, accents dropped, and the last word singular ("purchase orders" finds PurchaseOrder).
"""

from lorebase_core.resolve.codes import standard_words
from lorebase_core.resolve.matching import (
    MAX_PER_PHRASE,
    MAX_PHRASE_WORDS,
    SCORES,
    UNKNOWN_REASON,
    TextResolution,
    resolve_text,
)
from lorebase_core.resolve.numbers import NumberFound, number_candidates, typed_comparison
from lorebase_core.resolve.query_suggestions import Suggestion, shortest_path, suggest
from lorebase_core.resolve.terms import Candidate, Direction, Entry, Level, Target, Term
from lorebase_core.resolve.text import (
    STOP_WORDS,
    identifying_words,
    is_noise,
    normalize,
    similarity,
    singular,
    stem,
    stem_key,
    trigrams,
    words,
)
from lorebase_core.resolve.vocabulary import Indexing, Vocabulary, indexing, vocabulary_entries

__all__ = [
    "MAX_PER_PHRASE",
    "MAX_PHRASE_WORDS",
    "SCORES",
    "STOP_WORDS",
    "UNKNOWN_REASON",
    "Candidate",
    "Direction",
    "Entry",
    "Indexing",
    "Level",
    "NumberFound",
    "Suggestion",
    "Target",
    "Term",
    "TextResolution",
    "Vocabulary",
    "comparison_predicate",
    "identifying_words",
    "indexing",
    "is_noise",
    "normalize",
    "number_candidates",
    "resolve_text",
    "shortest_path",
    "similarity",
    "singular",
    "standard_words",
    "stem",
    "stem_key",
    "suggest",
    "term_predicate",
    "trigrams",
    "typed_comparison",
    "vocabulary_entries",
    "words",
]
