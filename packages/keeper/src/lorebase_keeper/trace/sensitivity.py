"""Which field names a traced read may keep compared values for (docs/trace.md, "What a step holds").

A step's query keeps the value a filter compares only on a field that is not sensitive. The
decision is made per name across every schema the read saw (the schema read and the default
branch's), and on purpose conservatively: a name that resolves to a sensitive field in any Kind,
Trait or Relation of any of them is sensitive everywhere, so `{"attr": "email"}` keeps no value
even on a Kind whose `email` is harmless. The names a schema resolves are its Attributes (of Kinds
and of Relations), its Traits' fields, and `title` and `key`.

- a Trait field is sensitive when the Trait tags it or the Attribute of any implementing Kind is;
- `title` when the title Attribute of any Kind is, `key` when a key Attribute of any Kind is;
- a derived Attribute when it is tagged or anything its Derivation reads is (transitively).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lorebase_core.schema import KindDef, Schema


@dataclass(frozen=True)
class SensitiveNames:
    """The field names of a read: those it resolves (`known`) and the sensitive ones."""

    sensitive: frozenset[str]
    """Names resolved to a sensitive field in any schema given."""
    known: frozenset[str]
    """Every name the schemas resolve: Attributes, Trait fields, `title`, `key`."""

    def keeps_value(self, name: str) -> bool:
        """Whether a value compared on `name` may be kept: the name is known and not sensitive."""
        return name in self.known and name not in self.sensitive


def sensitive_names(schemas: Sequence[Schema]) -> SensitiveNames:
    """The names of `schemas` and which of them are sensitive (see the module docstring)."""
    known: set[str] = set()
    sensitive: set[str] = set()
    for schema in schemas:
        for kind in schema.kinds.values():
            tagged = _sensitive_attributes(kind)
            known.update(kind.attributes)
            known.update(("title", "key"))  # every Record has both (title: the key without one)
            sensitive.update(tagged)
            if kind.title is not None and (
                kind.title in tagged or kind.title not in kind.attributes
            ):
                sensitive.add("title")
            if any(name in tagged or name not in kind.attributes for name in kind.key):
                sensitive.add("key")
        for trait_name, trait in schema.traits.items():
            known.update(trait.attributes)
            implementing = [schema.kinds[name] for name in schema.kinds_implementing(trait_name)]
            for name, rules in trait.attributes.items():
                if rules.sensitive or any(
                    name in _sensitive_attributes(kind) or name not in kind.attributes
                    for kind in implementing
                ):
                    sensitive.add(name)
        for relation in schema.relations.values():
            known.update(relation.attributes)
            sensitive.update(name for name, rules in relation.attributes.items() if rules.sensitive)
    return SensitiveNames(sensitive=frozenset(sensitive), known=frozenset(known))


def _sensitive_attributes(kind: KindDef) -> set[str]:
    """The Attributes of `kind` that are tagged or derived from a sensitive value.

    A Derivation naming something the Kind does not have counts as sensitive: in doubt, the
    value is not kept.
    """
    tagged = {name for name, rules in kind.attributes.items() if rules.sensitive}
    derived = {
        name: attribute.derivation.names
        for name, attribute in kind.attributes.items()
        if attribute.derivation is not None and name not in tagged
    }
    changed = True
    while changed:
        changed = False
        for name, reads in list(derived.items()):
            if any(read in tagged or read not in kind.attributes for read in reads):
                tagged.add(name)
                del derived[name]
                changed = True
    return tagged
