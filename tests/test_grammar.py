"""The output grammar: the shape of the action, and JSON strings with no raw control character."""

from __future__ import annotations

import re

import pytest

from memriskbench.episodes.tools import TOOLS
from memriskbench.play.systems.prompts import action_schema, managed_schema

grammar = pytest.importorskip("memriskbench.play.systems.grammar")
pytest.importorskip("llama_cpp")


@pytest.mark.parametrize(
    "schema",
    [action_schema(()), action_schema(tuple(TOOLS.values())), managed_schema()],
    ids=["plain", "all-tools", "managed"],
)
def test_every_string_character_excludes_control_characters(schema: dict) -> None:
    text = grammar.schema_gbnf(schema)
    rules = dict(line.split(" ::= ", 1) for line in text.splitlines() if " ::= " in line)
    assert "char ::= " + rules["char"] == grammar.JSON_CHAR_RULE
    # Every negated character class in the grammar (where an arbitrary character could slip in)
    # names the whole control range; the converter's lax `[^"\\]` is gone.
    negated = re.findall(r"\[\^([^\]]*)\]", text)
    assert negated and all(r"\x00-\x1F" in body for body in negated)
    assert '[^"\\\\]' not in text


def test_the_patched_grammar_is_accepted_by_llama_cpp() -> None:
    from llama_cpp import LlamaGrammar

    LlamaGrammar.from_string(grammar.schema_gbnf(action_schema(tuple(TOOLS.values()))), verbose=False)
