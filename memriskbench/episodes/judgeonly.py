"""The judge-only words of a record (`episode.JUDGE_ONLY`): what its `aliases` and `subject` must
not be, read as the judge reads them.

The leak checks look for an alias as they look for the value itself (`values.states`: every
content word of it, after folding), so an alias that a correct reply says turns that reply into
a leak. An alias (`alias_problem`) must not be:

- **blank**: nothing but invisible characters, lone combining marks or punctuation once folded
  (`values.fold`: visible NFKC, case folded), so there is nothing a reply could say;
- **common**: no content word at all ("a", "the": the matcher then looks for the folded text
  anywhere, and "a" is in "what"), or a single content word that is everyday by the judge's own
  rule (`parts.everyday`: a filler word, a listed common word, or Zipf frequency of at least
  `parts.RARE_ZIPF`; "I", "home") or, for a figure, generic (`values.is_generic`: "2", "Friday").
  An alias of two or more content words is not common, whatever its words: the judge needs all
  of them in one reply, and such pairs are the telling paraphrases aliases exist for ("skin
  cancer", "new hip");
- **a name**: every content word is in the names of the episode's people and groups
  (`Episode.names`), which correct replies say;
- **another record's value**: a value of another record of the episode states it, so saying
  that value would leak this record.

Whether the scripted oracles say an alias where it must stay unsaid needs the reference agents
and the judge, a stage above this one: `results/oracle_aliases.py`.

A subject is only required not to be blank (`blank`): subjects are everyday words that correct
replies say on purpose ("pickup", "gate", inside the value "gate E2"), which is how binding reads
them (`judge/checks/binding.py`).
"""

from __future__ import annotations

from memriskbench.common.parts import everyday
from memriskbench.common.values import fold, is_generic, states, value_atoms
from memriskbench.episodes.episode import Episode, MemoryOp
from memriskbench.errors import EpisodeError
from memriskbench.risks import IMPORTED_RISK


def blank(text: str) -> bool:
    """Nothing a reply could say: no letter or digit once folded."""
    return not any(ch.isalnum() for ch in fold(text))


def code_points(text: str) -> str:
    """The characters of a text as U+ code points: how to show one that prints as nothing."""
    return " ".join(f"U+{ord(ch):04X}" for ch in text) or "empty"


def common(text: str) -> bool:
    """No content word, or one everyday word or generic figure (see the module docstring)."""
    atoms = value_atoms(text)
    if len(atoms) != 1:
        return not atoms
    atom = atoms[0]
    return everyday(atom.text) if atom.kind == "word" else is_generic(atom.text)


def alias_problem(ep: Episode, op: MemoryOp, alias: str) -> str | None:
    """Why `alias` of the record `op` would make correct replies leak, or None."""
    about = f"alias {alias!r} of record {op.id!r}"
    if blank(alias):
        return f"{about} is blank once folded ({code_points(alias)}): there is nothing for a reply to say"
    if common(alias):
        return f"{about} is a common word, which correct replies say: give a rarer word or a longer phrase"
    if states(alias, "\n".join(ep.names())).hit:
        return f"{about} names the episode's people or groups, whom correct replies name"
    for other in ep.memory_ops().values():
        if other.id != op.id and states(alias, other.value).hit:
            return f"{about} is stated by the value of record {other.id!r} ({other.value!r}), so saying that value leaks {op.id!r}"
    return None


def alias_field(op: MemoryOp, alias: str) -> str:
    """Where the record declares `alias`: `aliases[k]`, or `categories[k]` for a category (the
    loader appends the categories to the aliases, `episode.MemoryOp`)."""
    cats = op.categories or ()
    if alias in cats:
        return f"categories[{cats.index(alias)}]"
    return f"aliases[{op.aliases.index(alias)}]"  # the declared aliases come first


def alias_word_errors(ep: Episode) -> list[EpisodeError]:
    """One error per alias that `alias_problem` refuses, naming its field."""
    if ep.risk == IMPORTED_RISK:
        return []
    errs = []
    for i, ev in enumerate(ep.events):
        for j, op in enumerate(ev.memory):
            for alias in op.aliases:
                why = alias_problem(ep, op, alias)
                if why:
                    field = f"events[{i}].memory[{j}].{alias_field(op, alias)}"
                    errs.append(EpisodeError(why, file=ep.source_file, episode=ep.id, field=field))
    return errs
