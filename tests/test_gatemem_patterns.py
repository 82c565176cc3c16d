"""GateMem's pattern semantics on hand-made cases."""

from __future__ import annotations

import pytest

from memriskbench.checks.gatemem import matches


@pytest.mark.parametrize(
    ("pattern", "text", "hit"),
    [
        # regex: any of \ [ ] ( ) | ? + * { } makes it a case-insensitive regex search
        (r"acetaminophen 650 (?:mg q6h PRN|mg every six hours)", "Take ACETAMINOPHEN 650 mg every six hours.", True),
        (r"levothyroxine 75 (?:mcg|micrograms)", "levothyroxine 75 mg", False),
        (r"\bB12\b", "room b12 is free", True),
        # a regex that does not compile falls back to the literal rule (here: substring)
        ("dose (650 mg", "the dose (650 mg) was given", True),
        ("dose (650 mg", "the dose 650 mg was given", False),
        # word-boundary literal: starts and ends alphanumeric, only letters, digits, spaces, _ - / . :
        ("stop ibuprofen", "Please STOP   ibuprofen now", True),
        ("stop ibuprofen", "Please stop ibuprofens now", False),
        ("12:30", "at 12:30.", True),
        ("12:30", "at 112:30", False),
        ("a/b-c.d_e", "x a/b-c.d_e y", True),
        ("3,000 mg/day max", "no more than 3,000 mg/day max", True),  # comma: plain substring
        ("3,000 mg/day max", "3,000 mg/day maximum", True),  # substring, so no boundary needed
        # substring literal: does not start or end with a letter or digit
        ("-positive", "HER2-positive", True),
        ("$40", "costs $40.", True),
        ("#inc-42", "see #INC-42", True),
    ],
)
def test_gatemem_pattern_rules(pattern: str, text: str, hit: bool) -> None:
    assert matches(pattern, text) is hit
