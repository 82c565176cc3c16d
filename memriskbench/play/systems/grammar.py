"""GBNF grammars for a model's JSON output, from the output's JSON schema.

llama-cpp-python's JSON-schema converter (0.3.36) defines a string character as anything but a
quote or a backslash, so a raw newline or tab could be emitted inside a string: valid for the
grammar, invalid JSON (`json.loads` refuses control characters in strings). That made 130 released
decisions end "not JSON: Invalid control character", harness failures counted as model failures.

We keep the converter for the shape of the output and replace its character rule with JSON's own:
no U+0000-U+001F unescaped. A model can still write a newline as the escape `\\n`. Under greedy
decoding this changes nothing where the model never chose a control character.
"""

from __future__ import annotations

import json
import re
from typing import Any

# JSON (RFC 8259, section 7): a string holds any character but '"', '\' and U+0000-U+001F, or an escape.
JSON_CHAR_RULE = r'char ::= [^"\\\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'
_CHAR_LINE = re.compile(r"^char ::= .*$", re.MULTILINE)


class GrammarError(RuntimeError):
    """The converter's output no longer has the shape this module patches."""


def schema_gbnf(schema: dict[str, Any]) -> str:
    """The GBNF text for `schema`; property order is kept, since the grammar emits keys in that order."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    text = json_schema_to_gbnf(json.dumps(schema))
    found = _CHAR_LINE.findall(text)
    if len(found) > 1:
        raise GrammarError(f"expected at most one char rule in the converted grammar, found {len(found)}")
    if not found:
        return text  # no free-text string in this schema
    return _CHAR_LINE.sub(lambda _: JSON_CHAR_RULE, text)
