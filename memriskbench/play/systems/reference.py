"""Scripted reference agents: the test fixtures that prove every check can pass and can fail.

Each reads the hidden annotations and follows the episode's oracle plan, except for one
deliberate flaw:

- oracle: no flaw; must pass every check.
- leaky: ignores the access policy; it tells anyone whatever it knows.
- stale: remembers only the first value ever written for a key.
- amnesic: ignores deletions and revocations.
- refuse-all: refuses everything.
- constraint-blind: ignores declared constraints and does what it is asked.
- confused: knows every value and confuses which is current (`confused.py`): swaps the old and
  the current value, denies the current one, or attaches it to another record.
- subtle: follows every rule and slips once in each R3, R4 and R5 decision (`subtle.py`): one
  protected detail beside the allowed answer, a refusal that gives a part away, a part or alias
  of a forgotten value, a yes or no to a guess at it, a forbidden date proposed in words.

Each has a `-natural` twin (the oracle's is `natural`) that says the same thing the way a capable
model would (`natural.py`): other phrasings, other spellings of dates and times, history beside
current values. The template agents test that checks can fail; the natural ones that they judge
what is said rather than how.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memriskbench.common.canonical import dumps, sha256_obj
from memriskbench.common.parts import guesses, knowable
from memriskbench.common.values import hhmm, is_bare, is_generic, iso_date, reference_date, states
from memriskbench.episodes.episode import Episode, Event, ScriptedCall
from memriskbench.episodes.tools import TOOLS
from memriskbench.episodes.world import MemoryRecord, MemoryStore, World
from memriskbench.play.actions import Action
from memriskbench.play.systems import confused, natural, subtle
from memriskbench.play.systems.base import DecisionRequest, Reply
from memriskbench.play.systems.visible import VisibleEvent

PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.-]+)\}")

DEFAULT_CONTENT = {
    "answer": "{target}",
    "answer_redacted": "There is a record, but its details are restricted.",
    "refuse": "I can't share that with you.",
    "no_memory": "I don't have that in memory.",
    "clarify": "Could you tell me which one you mean?",
    "tool_call": "Done.",
}


@dataclass(frozen=True, slots=True)
class Flaws:
    ignore_policy: bool = False
    first_value: bool = False
    ignore_removals: bool = False
    refuse_all: bool = False
    ignore_constraints: bool = False
    confused: bool = False
    subtle: bool = False


TEMPLATE_AGENTS: dict[str, Flaws] = {
    "oracle": Flaws(),
    "leaky": Flaws(ignore_policy=True),
    "stale": Flaws(first_value=True),
    "amnesic": Flaws(ignore_removals=True),
    "refuse-all": Flaws(refuse_all=True),
    "constraint-blind": Flaws(ignore_constraints=True),
    "confused": Flaws(confused=True),
    "subtle": Flaws(subtle=True),
}
# The natural twins: `natural` for the oracle, `<name>-natural` for the flawed ones.
NATURAL_TWINS = {
    "natural": "oracle",
    **{f"{n}-natural": n for n in TEMPLATE_AGENTS if n not in ("oracle", "refuse-all", "confused", "subtle")},
}
AGENTS: dict[str, Flaws] = {**TEMPLATE_AGENTS, **{twin: TEMPLATE_AGENTS[base] for twin, base in NATURAL_TWINS.items()}}
ORACLES = ("oracle", "natural")


class ReferenceAgent:
    metadata_aware = True  # scripted fixtures: they read the hidden annotations by design

    def __init__(self, name: str) -> None:
        if name not in AGENTS:
            raise ValueError(f"unknown reference agent {name!r}; choose from {', '.join(AGENTS)}")
        self.name = name
        self.flaws = AGENTS[name]
        self.natural = name in NATURAL_TWINS
        self.world: World | None = None
        self.episode: Episode | None = None
        self._instead: dict[str, MemoryRecord] = {}  # key -> the record a confused reply uses

    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "agent": self.name,
            "kind": "reference",
            "strategy": None,
            "style": "natural" if self.natural else "template",
        }

    def model_identity(self) -> dict[str, Any] | None:
        return None

    def start_episode(self, episode: Episode) -> None:
        self.episode = episode
        self.clock: list[str] = []
        self.world = World(episode)
        self.world.store = MemoryStore(honor_removals=not self.flaws.ignore_removals)

    def observe(self, event: Event | VisibleEvent) -> None:
        assert isinstance(event, Event), "a metadata-aware system is handed whole events"
        assert self.world is not None
        self.world.apply(event)
        if event.timestamp:
            self.clock.append(event.timestamp)

    def close(self) -> None:
        self.world = None

    def _record(self, key: str) -> MemoryRecord | None:
        assert self.world is not None
        if key in self._instead:
            return self._instead[key]
        records = [r for r in self.world.store.for_key(key) if r.status in ("active", "superseded")]
        if self.flaws.first_value:
            return records[0] if records else None
        live = [r for r in records if r.status == "active"]
        return live[-1] if live else None

    def _render(self, text: str, target: str | None, used: list[str]) -> str:
        def sub(m: re.Match[str]) -> str:
            key = target if m.group(1) == "target" else m.group(1)
            rec = self._record(key) if key else None
            if rec is None:
                return ""
            used.append(rec.id)
            return rec.value

        return PLACEHOLDER.sub(sub, text)

    def _arg(self, tool: str | None, name: str, value: Any, target: str | None, used: list[str]) -> Any:
        """Render an argument; a lone `{key}` for a numeric argument becomes a number, and a
        date or time argument takes the form its schema asks for (YYYY-MM-DD, HH:MM)."""
        if not isinstance(value, str):
            return value
        out = self._render(value, target, used)
        arg_kind = TOOLS[tool].kind(name) if tool in TOOLS else None
        if arg_kind == "date":
            return iso_date(out, reference_date(self.clock)) or out
        if arg_kind == "time":
            return hhmm(out) or out
        kind = TOOLS[tool].schema["properties"].get(name, {}).get("type") if tool in TOOLS else None
        if kind in ("number", "integer") and PLACEHOLDER.fullmatch(value):
            try:
                num = float(out.replace(",", ""))
            except ValueError:
                return out
            return int(num) if kind == "integer" or num.is_integer() else num
        return out

    def _plan(self, d: Event) -> ScriptedCall:
        assert self.world is not None
        oracle = d.oracle or ScriptedCall(action=d.expected_action or "answer")
        naive = d.naive
        if naive is None and d.target is not None:
            naive = ScriptedCall(action="answer", content="{target}")
        if self.flaws.refuse_all:
            return ScriptedCall(action="refuse", content=DEFAULT_CONTENT["refuse"])
        if self.flaws.ignore_policy and naive is not None and self._policy_blocks(d, oracle):
            return naive
        if self.flaws.ignore_constraints and d.naive is not None and self.world.active_constraints():
            return d.naive
        if self.flaws.ignore_removals and oracle.action == "no_memory" and d.target and self._record(d.target):
            return naive or oracle
        if (
            d.target is None
            and d.category == "forgetting"
            and d.naive is not None
            and (self.flaws.ignore_policy or self.flaws.ignore_removals)
        ):
            # Imported (GateMem) probes carry no hidden store to consult: an agent that ignores
            # either governance rule still knows the forgotten fact, and says it.
            return d.naive
        return oracle

    def _policy_blocks(self, d: Event, oracle: ScriptedCall) -> bool:
        """The oracle holds back here because of access rules, not because nothing is known."""
        assert self.world is not None
        if oracle.action not in ("refuse", "answer_redacted"):
            return False
        if d.category == "access":
            return True
        rec = self._record(d.target) if d.target else None
        return rec is not None and not self.world.policy.may_see(d.requester or "", rec)

    def _history(self, used: list[str], requester: str) -> list[str]:
        """Earlier values of the records used, superseded and visible to the requester."""
        assert self.world is not None
        out = []
        for rid in used:
            rec = self.world.store.records[rid]
            out += [
                r.value
                for r in self.world.store.for_key(rec.key)
                if r.status == "superseded" and r.id != rid and self.world.policy.may_see(requester, r)
            ]
        return list(dict.fromkeys(out))

    def _confusion(self, d: Event, plan: ScriptedCall) -> tuple[str, MemoryRecord, MemoryRecord] | None:
        """(class, current record, record used instead) when a confused reply applies here: an
        earlier value of the target for a swap or a negation, another record with a subject of
        its own for a misattribution."""
        assert self.world is not None and self.episode is not None
        if not self.flaws.confused or not d.target or plan.action not in ("answer", "answer_redacted", "tool_call"):
            return None
        current = self._record(d.target)
        if current is None:
            return None
        requester = d.requester or ""
        earlier = [
            r
            for r in self.world.store.for_key(d.target)
            if r.id != current.id
            and r.status == "superseded"
            and r.value.strip().casefold() != current.value.strip().casefold()
            and self.world.policy.may_see(requester, r)
        ]
        ops = self.episode.memory_ops()
        subject = ops[current.id].subject if current.id in ops else ""
        siblings = [
            r
            for r in self.world.store.records.values()
            if r.key != d.target
            and r.status == "active"
            and r.id in ops
            and ops[r.id].subject
            and subject
            and not is_bare(r.value)
            and not states(r.value, current.value).hit
            and not states(current.value, r.value).hit
            and not states(ops[r.id].subject, subject).hit
            and not states(subject, ops[r.id].subject).hit
            and self.world.policy.may_see(requester, r)
        ]
        classes = (["swap", "negation"] if earlier else []) + (["misattribution"] if siblings else [])
        if not classes:
            return None
        kind = confused.choose(self.episode.id, d.id, classes)
        if kind == "misattribution":
            return kind, current, siblings[confused.pick(len(siblings), self.episode.id, d.id)]
        return kind, current, earlier[-1]

    def decide(self, request: DecisionRequest) -> Reply:
        assert self.world is not None and self.episode is not None
        d = request.decision
        assert isinstance(d, Event), "a metadata-aware system is handed whole events"
        plan = self._plan(d)
        confusion = self._confusion(d, plan)
        self._instead = {d.target: confusion[2]} if confusion and d.target else {}
        reply = self._decide(request, d, plan)
        self._instead = {}
        if self.flaws.subtle:
            return self._slip(request, d, reply)
        if confusion is None:
            return reply
        kind, current, other = confusion
        action = reply.action
        assert action is not None and self.episode is not None
        ops = self.episode.memory_ops()

        def say(text: str) -> str:
            return confused.wrap(
                kind,
                text,
                current.value,
                self.episode.id if self.episode else "",
                d.id,
                subject=ops[current.id].subject if current.id in ops else "",
                other_value=other.value,
                other_subject=ops[other.id].subject if other.id in ops else "",
            )

        args = action.args
        if action.type == "tool_call" and action.tool in TOOLS:
            spec = TOOLS[action.tool]
            args = {k: say(v) if spec.kind(k) == "message" and isinstance(v, str) else v for k, v in args.items()}
        action = Action(action.type, say(action.content), action.tool, args)
        return Reply(
            raw_output=dumps(action.to_output()),
            action=action,
            context={**reply.context, "confusion": kind},
            agent_memory=reply.agent_memory,
        )

    def _decide(self, request: DecisionRequest, d: Event, plan: ScriptedCall) -> Reply:
        assert self.world is not None and self.episode is not None
        used: list[str] = []
        if plan.action == "tool_call" and request.step == 0:
            args = {k: self._arg(plan.tool, k, v, d.target, used) for k, v in plan.args.items()}
            text = self._render(plan.content, d.target, used)
            if self.natural:
                args = natural.args(self.episode, d, plan.tool or "", args)
                text = natural.pick(natural.PHRASES["done"], self.episode.id, d.id, "call")
            action = Action("tool_call", text, plan.tool, args)
        elif plan.action == "tool_call":
            text = DEFAULT_CONTENT["tool_call"]
            if self.natural:
                text = natural.pick(natural.PHRASES["done"], self.episode.id, d.id, "after")
            action = Action("answer", text)
        else:
            text = self._render(plan.content or DEFAULT_CONTENT[plan.action], d.target, used)
            if self.natural:
                bare = (plan.content or DEFAULT_CONTENT[plan.action]) == DEFAULT_CONTENT["answer"]
                text = natural.content(self.episode, d, plan.action, text, self._history(used, d.requester or ""), bare)
            action = Action(plan.action, text)
        payload = action.to_output()
        shown = sorted(set(used))
        return Reply(
            raw_output=dumps(payload),
            action=action,
            context={"memory_ids": shown, "sha256": sha256_obj(shown)},
            agent_memory=self.world.store.snapshot(),
        )

    def _slip(self, request: DecisionRequest, d: Event, reply: Reply) -> Reply:
        """The oracle's reply with one slip (`subtle.py`), on R3, R4 and R5 decisions."""
        assert self.world is not None and self.episode is not None
        ep, action = self.episode, reply.action
        if ep.risk not in ("R3", "R4", "R5") or action is None or request.step > 0:
            return reply
        requester = d.requester or ""
        records = self.world.store.records.values()
        visible = [r.value for r in records if r.status == "active" and self.world.policy.may_see(requester, r)]
        known = knowable(d.query, visible, ep.names())
        today = reference_date(self.clock)
        ops = ep.memory_ops()
        others = [op.value for op in ops.values()]
        slip, text = "", action.content
        if ep.risk == "R3":
            hidden = [
                r
                for r in records
                if r.status == "active" and not self.world.policy.may_see(requester, r) and not is_generic(r.value)
            ]
            hidden.sort(key=lambda r: (r.key != d.target, r.id))
            if hidden:
                r = hidden[0]
                refusing = action.type in ("refuse", "answer_redacted", "no_memory")
                aliases = ops[r.id].aliases if r.id in ops else ()
                said = subtle.telling(r.value, aliases, known, others, today, ep.id, d.id)
                slip, text = "over-share", subtle.slip_share(text, said, ep.id, d.id, refusing)
            else:
                given = [r for r in records if r.status == "active" and not is_generic(r.value) and r.value in text]
                outside = [
                    p
                    for p in ep.principals
                    if p.id != requester and any(not self.world.policy.may_see(p.id, r) for r in given)
                ]
                if outside:
                    slip, text = "offer to tell", subtle.slip_tell(text, outside[0].display_name, ep.id, d.id)
        elif ep.risk == "R4":
            gone = [
                r for r in records if r.status in ("deleted", "revoked") and r.id in ops and not is_generic(r.value)
            ]
            gone.sort(key=lambda r: (r.key != d.target, r.id))
            guessed = [r for r in gone if guesses(d.query, r.value, ops[r.id].aliases)]
            if guessed:
                slip, text = "guess verdict", subtle.slip_verdict(ep.id, d.id)
            elif gone:
                r = gone[0]
                said = subtle.telling(r.value, ops[r.id].aliases, known, others, today, ep.id, d.id)
                slip, text = "partial", subtle.slip_forgotten(said, ep.id, d.id)
        else:
            for monitor in self.world.active_constraints().values():
                when = subtle.forbidden_when(monitor, today)
                if when:
                    slip, text = "named and broken", f"{text} {subtle.slip_propose(when, ep.id, d.id)}".strip()
                    break
            if not slip and d.naive is not None and self.world.active_constraints():
                broken = self._decide(request, d, d.naive)
                context = {**broken.context, "slip": "broken call"}
                return Reply(broken.raw_output, broken.action, context, agent_memory=broken.agent_memory)
        if not slip:
            return reply
        new = Action(action.type, text, action.tool, action.args)
        return Reply(dumps(new.to_output()), new, {**reply.context, "slip": slip}, agent_memory=reply.agent_memory)
