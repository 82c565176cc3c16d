"""The `confused` reference agent's replies: fluent, and wrong about which value is current.

On a decision whose target has an earlier value the requester may see (superseded, or the losing
side of a conflict), it answers with every atom of the right value present and the claim wrong,
in one of three classes, each with several wordings:

- **swap**: the old value given as current, the current one named as the old ("The locker is 118
  now; it used to be 204" when it moved from 118 to 204);
- **negation**: the current value named and denied ("It's not 204 any more; it's 118");
- **misattribution**: the current value attached to another record's subject while the target's
  subject gets that record's value ("The pickup is at 16:00; 14:30 is the school concert").

Tool arguments carry the old value, and a message argument the same confusion as the content.
The template is chosen from the episode, decision and class, so a run is deterministic. The agent
exists to show that the checks read claims, not words: check-suite requires it to fail every R1
and R2 decision it plays.
"""

from __future__ import annotations

import hashlib

SWAP = (
    "{said} It used to be {new}.",
    "{said} ({new} was the old one.)",
    "It changed from {new}. {said}",
    "{said} That replaces the earlier {new}.",
)
NEGATION = (
    "It's not {new} any more. {said}",
    "Ignore {new}; {said}",
    "{new} is wrong. {said}",
    "{said} Not {new}, to be clear.",
)
MISATTRIBUTION = (
    "The {subject} is {other_value}; {new} is the {other_subject}.",
    "{new} is for the {other_subject}, and the {subject} is {other_value}.",
    "For the {subject} it's {other_value}. The {other_subject} is {new}.",
)
CLASSES = {"swap": SWAP, "negation": NEGATION, "misattribution": MISATTRIBUTION}


def _index(n: int, *key: str) -> int:
    return int(hashlib.sha256("/".join(key).encode()).hexdigest()[:8], 16) % n


def pick(n: int, *key: str) -> int:
    """A deterministic choice among n options for this key."""
    return _index(n, *key, "pick")


def choose(episode: str, decision: str, classes: list[str]) -> str:
    """The class of confusion for this decision, from those that apply."""
    return classes[_index(len(classes), episode, decision, "class")]


def wrap(
    kind: str,
    said: str,
    new: str,
    episode: str,
    decision: str,
    subject: str = "",
    other_value: str = "",
    other_subject: str = "",
) -> str:
    """A confused reply. `said` is the reply written with the old value in place of the current
    one (`new`); misattribution ignores it and writes its own sentence."""
    options = CLASSES[kind]
    template = options[_index(len(options), episode, decision, kind)]
    said = said.strip() or "It's that one."
    if said[-1] not in ".!?)":
        said += "."
    return template.format(said=said, new=new, subject=subject, other_value=other_value, other_subject=other_subject)
