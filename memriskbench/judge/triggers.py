"""The claim reader's catalogue: every trigger, pseudo-trigger, terminator and clause boundary, in
one place.

The reader (`judge/reader.py`) follows NegEx and its successor ConText (Chapman et al. 2001;
Harkema et al. 2009): a trigger term has a category and a direction, and it colours the values
that lie in its scope. A *forward* trigger ("no longer", "used to be") reaches the values after
it; a *backward* one ("... was phishing", "... is out of date") the values before it. A scope ends
at the clause boundary, at a terminator ("but", "now", "instead"), at the next trigger of the same
direction, or after `window` words. A pseudo-trigger looks like a trigger and is not one ("not
only", "no doubt", "no later than"); the text it covers starts no scope.

Categories:
- `rejected`: the value is negated, denied or excluded ("not", "isn't", "instead of", "ignore").
- `historical`: the value is past or replaced ("used to", "previously", "moved from").
- `quoted`: the requester's own words said back ("you mentioned", "you asked about"): the reply
  claims nothing about the value.
- `hedged`: put forward as one possibility among others ("it's either 100 mcg or 88 mcg", "it
  may have moved to Saturday", "the bay could be C or D"): the reply does not state it.
- `fallback`: offered in case the first choice fails ("if that fails, try 5433", "failing that,
  730514"): the value is put forward as surely as one asserted, whatever else reaches it.
- `past`: a bare past tense, a reason, a condition or a term of a sum ("it was", "which was"). Weaker than `historical`: "the Quiz 3 score,
  which was 17/20" still states a score that holds, so a past mention states a value; but it is
  history enough to excuse an old value named beside the asserted current one.

Every phrase is written lower case, as the reader sees text (case folded, curly quotes
straightened). To add a trigger, add one `Trigger` to the list of its category and direction
below, and a sentence that needs it to `tests/test_claims.py`; nothing else reads phrases.
"""

from __future__ import annotations

from dataclasses import dataclass

FORWARD = "forward"
BACKWARD = "backward"
REJECTED = "rejected"
HISTORICAL = "historical"
QUOTED = "quoted"
PAST = "past"
HEDGED = "hedged"
FALLBACK = "fallback"


@dataclass(frozen=True, slots=True)
class Trigger:
    """`pattern` is a regular expression over folded text, matched on word boundaries."""

    pattern: str
    category: str
    direction: str
    window: int = 10  # words between the trigger and the value, at most
    # A change told as "from A to B" makes only A past: such a trigger's scope also ends at
    # `HISTORY_TERMINATORS` ("to", "with"); other history ("originally due to expire on May 3",
    # "first planned it for the 22nd") reaches past them.
    from_to: bool = False
    # A weak trigger (a bare past tense, a reason clause) colours a value only where no other
    # trigger of its direction reaches it: "not booked for Friday" stays a negation.
    weak: bool = False


def _t(
    category: str, direction: str, window: int, *patterns: str, from_to: bool = False, weak: bool = False
) -> list[Trigger]:
    return [Trigger(p, category, direction, window, from_to, weak) for p in patterns]


_NEG = r"(?:not|never|no longer)"
_BE = r"(?:is|was|are|were|'s|'re)"
_CHANGE = (
    r"(?:moved|changed|switched|updated|shifted|rescheduled|reassigned|bumped|pushed|brought forward|"
    r"corrected|revised|upgraded|downgraded|extended|progressed|raised|lowered|increased|decreased|reduced|upped|cut|dropped|went|goes|changes|moves|replaced)"
)

TRIGGERS: list[Trigger] = [
    # "zero cashews and zero pistachios": none of what follows at all
    *_t(REJECTED, FORWARD, 1, r"zero"),
    # rejected, before the value
    *_t(
        REJECTED,
        FORWARD,
        10,
        r"not",
        r"never",
        r"no longer",
        r"no(?!\s*[,.;:!?])",
        r"nothing(?: on| about| for| under| with)?",
        r"none of",
        r"neither",
        r"nor",
        r"without",
        r"isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't|can't|cannot|couldn't|shouldn't|mustn't|haven't|hasn't",
        r"instead of",
        r"rather than",
        r"anything but|everything but|any \w+ but|except(?: for)?|other than|apart from",
        r"in place of",
        r"ignore|disregard",
        r"stop using|stop sending to",
        r"avoid|skips?|skipping|exclude[sd]?|excluding|sits? out|sitting out|miss(?:es)?|missing",
        r"free of|(?:keep|stay)(?: \w+)? (?:away from|clear of|off)|steer clear of|hold the|leave out|leave off|left out|left off|leaving out|omitted",
        r"rules? out|ruled out|forbids?|forbidden|bans?|banned|not allowed|no more",
        r"unable to",
        r"wrongly|mistakenly|incorrectly|erroneously",
        # what should have been, and was not: "pool max was 12 (should've been 120)"
        r"should(?:'ve| have) been|(?:was|were) supposed to be",
        # a clinician's negations (NegEx): "denies fever", "negative for DVT", "-ve for anemia"
        r"den(?:y|ies|ied|ying)(?: any)?",
        r"(?:negative|-ve) for",
        r"none",
    ),
    # rejected, after the value
    *_t(
        REJECTED,
        BACKWARD,
        6,
        rf"{_BE} (?:wrong|incorrect|invalid|fake|bogus|a mistake|an error|a typo|a scam|phishing|a phishing \w+|fraudulent|fraud|spam)",
        rf"{_BE} (?:a |an )?(?:[\w-]+ ){{0,2}}(?:error|mistake|typo|misreading|mix-up|mixup)",
        rf"{_BE} {_NEG} (?:an? )?(?:right|correct|valid|current|accurate|it|the one|true|in use|active|used|needed|allowed|ok|okay)",
        r"(?:isn't|aren't|wasn't|weren't) (?:right|correct|valid|current|accurate|it|the one|true|in use|active|used|needed|allowed|ok|okay)",
        r"(?:are|is|have been|has been|were|was) (?:now )?off(?: the table|-limits| limits)",
        r"(?:are|is) out(?: of the question)?",
        r"(?:are|is) (?:not allowed|forbidden|banned|excluded)",
        r"(?:are|is|was|were|has been|have been) (?:now )?(?:blocked|disabled|suspended|deactivated|blacklisted|locked)",
        r"(?:doesn't|does not|no longer) (?:apply|work|count|hold)",
        # denied as what it was: "Fjord Animal Clinic isn't her vet any more", "I had October 16,
        # but that's not the test date any more"
        r"(?:isn't|is not|aren't|are not|'s not|'re not) (?:[\w'-]+ ){0,3}any ?more",
        r"(?:that|it|this)(?:'s| is) (?:not|no longer) (?:[\w'-]+ ){0,3}any ?more",
        r"was (?:cancelled|canceled|revoked|withdrawn|retracted|deleted|rescinded)",
        r"(?:cancelled|canceled|revoked|withdrawn|retracted|scrapped)(?= *[,;)\n]| *$)",
        r"has been (?:cancelled|canceled|revoked|withdrawn|retracted|deleted|rescinded)",
        r"should be ignored",
        r"(?:won't|will not|wouldn't|doesn't|does not) (?:work|do|suit)",
        rf"{_BE} (?:a |an )?(?:garbled|misread|misheard|mistyped|mistaken|misreading|misprint|mix-up|mixup|void|voided|fraud)",
        r"(?:stopped|stops) working|fell through",
        r"in error|by mistake|by accident|erroneously",
        r"came from (?:a |an |the )?(?:compromised|hacked|spoofed|fake|fraudulent|phishing|suspicious|bogus|garbled|misheard|mistyped|misread)",
        r"(?:is|are|was|were|came back|tested) negative",
        r"(?:has |have |had )?(?:resolved|cleared up)",
    ),
    # historical, before the value
    *_t(
        HISTORICAL,
        FORWARD,
        6,
        r"used to(?: be)?",
        r"previously|formerly|originally|earlier",
        r"(?:the|your|his|her|their|our|its) (?:old|original|previous|former|earlier|first(?! (?:one|slot|available|free|open|opening|cycle|dose|session|appointment|visit|lesson|class|infusion|instalment|installment|payment|shift|round|treatment)\b)|initial)",
        r"old|original|previous|former|leftover|left-over",
        r"(?:the|your|his|her|their|our|its|that) (?:cancell?ed|superseded|retired|withdrawn|revoked|expired|outdated|obsolete|scrapped)",
        r"before the (?:change|update|switch|move|correction)",
        # "before that it went out on Thursday night", "prior to that", "until then"
        r"before that|prior to that|until then|up to then|till then",
        # a terse note: "- prev. Thu 14:00"
        r"prev\.?",
        r"until (?:the change|the update|recently|yesterday|last week|this morning|today)",
        r"(?:it|that|this|which) used to be",
        # told as the first of several: "Lin first quoted 84.50", "it moved twice, first to the 21st"
        r"(?:first|initially|originally) (?:\w+ed|said|gave|wrote|put|set|sent|told|thought|had|got|took|made|chose|went|began|to|at|on|for)",
        r"(?:started|began)(?: out)? (?:as|at|on|with)|(?:started|began) the \w+ (?:as|at|on|with)",
        # the past perfect sets a fact before the one now told: "Jonas had posted Thursday night"
        r"had (?:\w+ed|been|said|gave|given|put|set|sent|told|written|had|got|made|chosen)",
        # a source's earlier figure: "Shauna had it at 47.80", "Jonas's note had Thursday night"
        r"(?:had|recorded|logged|listed|entered|quoted) (?:it|them|this|that|him|her)(?: down)? (?:at|as|for|on)",
        r"(?:note|notes|email|message|memo|handout|letter|list|record|handoff|handover|quote|invoice|file|entry) (?:had|said|showed|listed|gave)",
        r"(?:(?:it|that|this|which|they) )?(?:was|were) (?:first|originally|initially)",
    ),
    *_t(
        HISTORICAL,
        FORWARD,
        6,
        # a change verb, with or without its object, before "from": "lowered it from 40 mg",
        # "moved the review from the 3rd", "only moved the departure, from 07:25"; and the nouns
        rf"{_CHANGE}(?:\s+[\w']+){{0,3}},?\s+(?:from|out of|off)",
        r"(?:down|up) from|(?:a |an |the )?(?:rise|drop|fall|increase|decrease|change|move|switch|cut) from",
        r"(?:replaced|replaces|replacing|supersedes|superseded|superseding|overrides|overrode|overriding)(?: the)?",
        # "per Hana's correction of Felix's 5433"
        # (not "her correction of October 14": a date after it dates the correction)
        r"correction (?:of|to)(?! (?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? )?\d)",
        from_to=True,
    ),
    *_t(PAST, FORWARD, 4, r"(?:it|that|this|which|they|these) (?:was|were)"),
    # a condition tells what would hold, not what does: "if your config points at 5433, switch
    # it to 6432"; weak, so "if not" and the like keep their own reading
    *_t(PAST, FORWARD, 8, r"if|unless|in case", weak=True),
    # the terms of a computation: "84.50 for the jug plus 27.80 postage", "the 60.00 plan minus
    # the student rate" (the base of a sum is not the sum)
    *_t(PAST, FORWARD, 2, r"plus|minus|less|\+", weak=True),
    # a past clause (a reason, an earlier step) tells what happened, not what holds: with the
    # current value asserted beside it, an old value there is history
    *_t(
        PAST,
        FORWARD,
        4,
        r"(?<!\b(?:have|has|'ve|'s|i|we|you|i've|we've|you've) )(?:was|were|\w{3,}ed|used|had|gave|said|got|sent|wrote|took|made|went|chose|paid|told|held|kept|met|found)",
        # (not "after dinner": a time of day, not an earlier step)
        r"because|since|after(?! (?:dinner|lunch|breakfast|supper|tea|school|work|class|church|practice|noon|midnight)\b)|once"
        r"|as(?= (?:the|it|they|he|she|we|his|her|their|our|your)\b)",
        # a step of a sequence told: "(May 6, then May 13 at 10:00, then 15:30)"
        r"then",
        weak=True,
    ),
    # a terse note, right before a figure: "now 2:40, was 3:15" (not "..., was paid with")
    *_t(HISTORICAL, FORWARD, 0, r"(?<=[,;(] )was(?= \S*\d)"),
    # the result of a change told in the past ("it went up to 18.50 when ..., then Dad dropped it
    # to 16.25", "it went from Nov 14 to Nov 21, then ...") or a way back ("getting back to
    # 18.50"): what happened or may happen, not what holds (not a bare "up to 12 units": a limit)
    *_t(
        PAST,
        FORWARD,
        2,
        r"(?:went|rose|fell|dropped|jumped|climbed|increased|decreased|raised|lowered|bumped|pushed|shifted|moved|changed)"
        r"(?: (?:it|them|that|this))?(?: up| down| back)? to",
        rf"{_CHANGE} from (?:[\w.:']+ ){{1,4}}to",
        r"(?:get|getting|got|go|going|come|coming) back (?:up |down )?to",
        weak=True,
    ),
    # the place or thing a trouble struck, told as the reason for a change: "moved her there after
    # the plumbing problem on her floor at the Shirakawa Umeda"
    *_t(
        PAST,
        FORWARD,
        8,
        r"(?:after|because of|due to|following) (?:the |a |an |that )?(?:[\w-]+ ){0,2}"
        r"(?:problem|issue|trouble|leak|flood(?:ing)?|fire|outage|incident|mix-up|closure|complaint|renovation|repairs?)s?",
        weak=True,
    ),
    # the value as the subject of a past tense ("Lin's 84.50 was list price"), or a term of a sum
    *_t(PAST, BACKWARD, 3, r"was|were|had been", r"plus|minus|less|\+", weak=True),
    # the requester's words, after the value: "the March 2029 date you mentioned earlier"
    *_t(QUOTED, BACKWARD, 3, r"you (?:mentioned|said|gave|quoted|wrote|typed|remembered|recalled)"),
    # several values, then one verdict on all of them: "the 2,340.00 first quote and the 2,915.00
    # revision are both replaced"
    *_t(
        HISTORICAL,
        BACKWARD,
        14,
        r"(?:are|were) (?:both|all) (?:now )?(?:replaced|superseded|outdated|obsolete|void|out of date|withdrawn|cancell?ed)",
    ),
    # a place that fell through, right after its name: "as the Acacia Crest double-booked"
    *_t(HISTORICAL, BACKWARD, 1, r"double-?booked|overbooked"),
    # set down as history by the assistant: "I flagged 5433 as the old direct port"
    *_t(
        HISTORICAL,
        BACKWARD,
        1,
        r"as (?:the |an? )?(?:old|original|previous|former|earlier|outdated|out of date|obsolete|stale|superseded|retired|deprecated)\b",
    ),
    # historical, after the value
    *_t(
        HISTORICAL,
        BACKWARD,
        6,
        rf"{_BE} (?:the |an? )?(?:old|original|previous|former|earlier|first|initial|outdated|out of date|obsolete|stale|superseded)",
        r"(?:is|are) no longer",
        r"(?:was|were|has been|have been|got|had been) (?:replaced|superseded|changed|moved|updated|corrected|dropped|archived|shelved)",
        r"before the (?:change|update|switch|move|correction)",
        r"until (?:the change|the update|recently|yesterday|last week|this morning|today)",
        r"(?:any ?more|previously|before|earlier|originally|at first|in the past)(?=\s*(?:[.;!?)\n]|$))",
        r"(?:no longer) (?:applies|stands|holds)",
        # held until something happened: "the public registry until the mirror went live"
        r"until (?:[\w'-]+ ){0,4}(?:went|moved|switched|changed|came|arrived|started|opened|launched|took over|was replaced)",
        rf"{_BE} (?:now )?(?:the |an? )?(?:retired|deprecated|discontinued|decommissioned|expired|defunct)",
        # rotated or swapped out: "Tq7-marlin-204 ... has been rotated out"
        r"(?:has been|have been|was|were|got) (?:rotated|swapped|switched|phased|taken|struck|crossed) (?:out|off)",
        # dropped or closed since: "18.19.1 is dropped", "the Harlow centre (Unit 7) closed in July"
        rf"{_BE} (?:now )?(?:dropped|scrapped|gone|closed)",
        r"(?:closed|shut|closed down|shut down)(?= (?:in|on|last|since|for good|permanently)\b| *[,.;)\n]| *$)",
        # "the 07:25 on his printout is the pre-wind-warning time Dimitri replaced"
        # (an object relative, with its agent: "the time that replaced it" is the new one)
        rf"{_BE} (?:the |an? )?(?:[\w-]+ ){{1,3}}(?!(?:that|which|who) )[\w.]+ (?:replaced|superseded|overrode|overruled|scrapped)",
        r"came from (?:a |an |the )?(?:stale|old|older|outdated|earlier|previous|superseded|last \w+'s)",
        r"(?:(?:was|were|has been|had been) )?(?:replaced|superseded|overridden|overruled) by",
        # only with its verb: "X, corrected by Owen" is the correction itself
        r"(?:was|were|has been|had been) (?:corrected|updated|changed) by",
        # an adverb inside the verdict: "KQ 117 has since been replaced"
        r"(?:was|were|has|have|had) (?:since|now|already|just) been (?:replaced|superseded|changed|moved|updated|corrected|"
        r"dropped|retired|scrapped|lifted|cancell?ed|withdrawn)",
        r"got (?:cancell?ed|scrapped|dropped|replaced|pulled|bumped|swapped out|retired)",
        # a bare participle closing the value's phrase: "(Farah's 15 superseded)" (not "the
        # 2,915.00 replaced the 2,340.00": the new value's verb has an object)
        r"(?:superseded|replaced|withdrawn|outdated|obsolete|scrapped|voided)(?=\s*(?:[),;.\n]|$))",
    ),
    # where the old value still lives: "18.19.1 in older READMEs", "the 50 mcg you may have on an
    # older label"
    *_t(
        HISTORICAL,
        BACKWARD,
        2,
        r"in (?:the |your |his |her |their |some )?(?:older|old|earlier|original|first|previous|outdated|stale) [\w-]+",
        r"(?:you|they|some of them|people|teammates|students|he|she) (?:may|might|could) (?:still )?(?:have|see|find|remember|recall)",
    ),
    # the value's noun phrase told, then the same subject's verdict in a later conjunct: "the
    # 2,340.00 quote from early May was for the original 38 and has been replaced"
    *_t(
        HISTORICAL,
        BACKWARD,
        14,
        r"and (?:has|have|had) (?:since |now )?been (?:replaced|superseded|withdrawn|cancell?ed|corrected|revised|overridden)",
    ),
    # one possibility among others: not stated
    *_t(
        HEDGED,
        FORWARD,
        8,
        r"either",
        r"(?:may|might|could) have(?: been)?(?: [a-z]+ed)?(?: (?:it|them))?(?: (?:to|for|at|on|until))?",
        r"(?:may|might|could)(?: well| also)? be",
        r"not sure (?:if|whether)|unclear (?:if|whether)|depending on",
    ),
    # a fallback is put forward: "if the panel rejects it, try 286947", "or if that fails, fernhill"
    *_t(
        FALLBACK,
        FORWARD,
        8,
        r"if (?:that|it|this|they|the \w+) (?:fails|failed|doesn't work|does not work|won't work|rejects it|is rejected|bounces|errors)",
        r"failing that|as a fallback|fall back to|or else|otherwise",
    ),
    # ... and after the value: "730514 should still work as a fallback", "5433 still takes direct
    # connections", "the original 9 April date is still the fallback"
    *_t(
        FALLBACK,
        BACKWARD,
        4,
        r"(?:should |will |would |may |might |can )?still (?:work|works|be valid|be good|open|opens|accept|accepts|take|takes|apply|applies|get you in|gets you in)",
        r"(?:is|are) (?:still )?(?:the |a |our |your )?(?:fallback|backup|back-up|plan b)",
        r"as (?:a|the|your|our) (?:fallback|backup|back-up)",
    ),
    # the requester's own words, said back
    *_t(
        QUOTED,
        FORWARD,
        6,
        r"you (?:mentioned|asked about|asked for|wrote|typed|said|gave|quoted|referred to)",
        r"your (?:message|question|note) (?:mentions|mentioned|about)",
        r"(?:asked|asking) about",
        # what a message said: "ignore any message that asked for the refund to go to a PayWallet account"
        r"(?:message|messages|email|emails|note|comment|text|caller|request|instruction|link|pop-up|popup)(?: \w+){0,2} "
        r"(?:that |which )?(?:asked|asks|asking|said|says|saying|told|claimed|claiming|wanted|pointed|pointing|requested|requesting|instructed|giving)",
    ),
]

# Layout that marks what it sits beside (`reader._annotation`), read only where no trigger
# reaches a value: a note in a parenthesis right after the value, with no figure of its own
# ("84.50 (list price, replaced by Greta's correction)"); a label that opens the value's line
# ("**Not valid:** sulfamethoxazole"); or the heading a bulleted list hangs from ("**No longer
# valid:**" above "- 84.50"). A note or label is matched from its start, markup stripped.
NOTE_WORDS = (
    r"(?:[\w-]+ ){0,3}(?:error|typo|mistake|misread(?:ing)?|garbled|wrong|invalid|bogus|fake|phishing|fraud(?:ulent)?|planted|injected|spoofed)"
    r"|(?:[\w-]+ ){0,6}(?:superseded|replaced|corrected|overridden|withdrawn|revoked|cancell?ed|retired|expired|obsolete|outdated|blocked)\b"
    r"|(?:the )?(?:old|previous|former|earlier|stale|no longer|not valid|not current|was|until)\b"
    # "original" alone, or of a figure: "(original quote)"; not "(original payment method)"
    r"|(?:the )?original(?:\s+(?:one|value|figure|amount|quote|date|time|price|number|plan|version|booking|request))?\s*[),;]"
)
LABEL_WORDS = (
    r"(?:not valid|no longer (?:valid|current|applies|in use)|invalid|superseded|outdated|obsolete|old|previous(?:ly)?|former(?:ly)?"
    r"|earlier|was|were|withdrawn|cancell?ed|replaced|retired|expired|ignore|do not use|don't use|history|errors?|corrected|revoked|blocked)\b"
    # "Before:", "Before the upgrade:", a table's "Before regrade" (the whole label, short)
    r"|before(?: (?:the |her |his |its |their |your )?[\w-]+){0,3}$"
    # a bare "Not:" label, and a table's "Replaces" column
    r"|not$|replaces$|replaced$"
)

# A later clause of the sentence that takes a value back by a pronoun ("662 019 447 was for the
# April 9 session, so it no longer applies"; "Kay posted 3.42, but that figure was provisional"):
# the value before it is rejected (`reader.mentions`), where no other figure comes between.
TAKEN_BACK = (
    r"(?:(?:it|that|this|they|those|these|(?:the|that|this) (?:\w+ ){0,2}?(?:code|date|figure|number|slot|time|start|refund|card|entry|one))"
    r"(?:'s|'re| is| are| was| were| has| have| had)?(?: been| now| also| actually| never| only)? ?)?"
    r"(?:no longer (?:valid|applies|apply|stands|stand|holds|confirmed|current|in use|works|work)"
    r"|(?:won't|doesn't|don't|does not|will not|did not|didn't) (?:work|apply|stand|hold|go through|happen|end up happening)"
    r"|(?:was|were|has been|have been|got|is|are) (?:cancell?ed|put on hold|on hold|withdrawn|scrapped|dropped|voided|rescinded|superseded)"
    r"|(?:was|were|is|are) (?:only |just )?(?:a proposal|provisional|a draft|tentative|not confirmed|unconfirmed|invalid)"
    r"|(?:hasn't|has not|haven't|have not|wasn't|was not|weren't|were not) (?:been )?(?:confirmed|approved|finali[sz]ed|started)"
    # an instruction not to use it: "..., but don't build on it"
    r"|(?:don't|do not|never) (?:use|build on|rely on|book|pay|send|go by|go with) (?:it|that|this|them|those)"
    # someone put it right: "the first transcript said sulfamethoxazole, but Dr. Osei corrected it"
    # (after "but": "17/20, Mr Osei corrected it" gives the corrected value)
    r"|but (?:[\w.',]+ ){0,8}(?:corrected|replaced|overrode|overruled|retracted|withdrew|amended|superseded) (?:it|that|this)\b"
    # several earlier values put right at once: "..., but Dr. Mbeki corrected both"
    r"|(?:corrected|replaced|overrode|overruled|retracted|withdrew|amended|superseded) (?:them|those|both)\b"
    # "Felix first said 5433, but that was the old direct port"
    r"|(?:was|were|is|are) (?:the |an? )?(?:old|previous|former|earlier|outdated|retired|stale|superseded)\b"
    r"|(?:please )?(?:ignore|disregard) (?:it|that|this|them|those)\b)"
)

# A reply that leaves the choice to the reader ("go with whichever looks right", "use your
# judgement") offers every value it names: an old one told beside the current is then a hedge,
# not history (`rules.used`).
LEFT_OPEN = (
    r"whichever|either (?:one|is fine|works|will do)|both (?:are fine|work|should work)|use your (?:own )?judge?ment"
    r"|not sure which|can'?t tell which|your call|up to you which"
)

# Look like triggers and are not: their text starts no scope.
PSEUDO: tuple[str, ...] = (
    # another thing, the object of a change, not the value: "which replaced the earlier one"
    # ("the old one is on Wednesday night" calls the value old: history)
    r"(?:replaced|replaces|replacing|superseded|supersedes|superseding|over|than) (?:the |an? |that )?"
    r"(?:earlier|older|old|previous|former|original) ones?",
    # when something was said, not what: "it's in ci/smoke.yaml, Ola mentioned it earlier"
    r"(?:mentioned|said|told|noted|posted|shared|asked|wrote)(?: (?:it|this|that|so|you|me|us))? earlier",
    r"not only",
    r"not just",
    r"no doubt",
    r"no problem",
    r"not a problem",
    r"no worries",
    r"not to worry",
    r"never mind",
    r"no matter",
    r"whether or not",
    r"if not",
    r"no later than",
    r"not later than",
    r"no earlier than",
    r"no more than",
    r"no less than",
    r"don't forget",
    r"do not forget",
    r"don't worry",
    r"not sure",
    r"can't wait",
    r"was (?:moved|changed|switched|updated|rescheduled|reassigned|bumped|corrected|set|booked|confirmed|raised|lowered|increased|reduced) (?:to|for|at|as)",
    r"were (?:moved|changed|switched|updated|rescheduled|reassigned|bumped|corrected|set|booked|confirmed) (?:to|for|at|as)",
    r"has (?:been )?(?:moved|changed|switched|updated|rescheduled|reassigned) to",
    r"no,",
    r"why not",
    r"once (?:a|an|per|daily|weekly|every|each|more|again|or twice)",  # how often, not a past clause
    r"(?:same|just) as before|as before",  # unchanged, not history
    # the original card or order is the one the money goes back to, not an old value
    r"(?:the|your|his|her|their|our) original (?:\w+ )?(?:card|visa|amex|mastercard|payment|method|account|order|receipt|packaging|box|form)",  # a suggestion ("why not Friday?"), not a negation
    # a change verb tells the new state, not a past one: "Lars rebooked him on ET 309"
    rf"re\w{{2,}}ed|{_CHANGE}",
    # an age, not history: "my 7-year-old", "a three-month-old"
    r"(?:year|month|week|day)s?[- ]old",
)

# End every scope they sit in: a clause turns here.
TERMINATORS: tuple[str, ...] = (
    r"but",
    r"however",
    r"though",
    r"although",
    r"yet",
    r"whereas",
    r"while",
    r"instead",
    r"now",
    r"currently",
    r"these days",
    r"going forward",
    r"from now on",
    r"as of",
    r"still",
    r"(?:moved|changed|switched|updated|rescheduled|reassigned|bumped|corrected|set) to",
    r"then",
    r"so",
    r"which is",
    r"the (?:new|current|latest|updated|correct|right)",
    r"(?:is|it's|that's) (?:the )?(?:new|current|latest|correct|right)",
    r"(?:is|are|'s|'re) (?:fine|ok|okay|allowed|safe|good|alright|all right)",
    r":",
    r"\(",
    r"\)",
)

# End a historical scope too: "moved from A23 to B41" makes only A23 past.
HISTORY_TERMINATORS: tuple[str, ...] = (r"to", r"into", r"for", r"with")

# A comma ends a scope when a new clause starts after it, not when a list goes on.
COMMA_OPENERS: tuple[str, ...] = (
    "it",
    "it's",
    "its",
    "that",
    "that's",
    "this",
    "the",
    "your",
    "you",
    "you're",
    "i",
    "i'm",
    "i've",
    "we",
    "we're",
    "he",
    "she",
    "they",
    "please",
    "use",
    "stay",
    "keep",
    "go",
    "head",
    "just",
    "and",
    "so",
    "then",
    "there",
    "here",
    "which",
    # a proposal after a comma is a clause of its own ("no Sundays, how about the 11th?")
    "how",
    "what",
    "shall",
    # the main verb after a relative clause: "the new one, which replaces whatever you had
    # before, is Tq7-marlin-204"
    "is",
    "was",
    "are",
    "were",
    "let's",
    "maybe",
    "perhaps",
)

# Sentence boundaries: a value is mentioned where all its atoms sit in one sentence. Sentence
# ends (not after "Dr.", "Cres." and the like), semicolons and dashes (an en dash between two
# figures is a range: "Saturday, 9–12", "9 am–12 pm").
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
SENTENCE_BREAK = (
    r"(?<!\b(?:dr|mr|mrs|ms|mx|st|prof|jr|sr|no|vs|etc|approx|e\.g|i\.e|ave|rd|cres|blvd|apt|ste|rm|aud|bldg|fl|sq|ln|ct|pl|hwy|mt|ext|incl|dept|prev|ch"
    # a month or weekday cut short: "Feb. 20", "Wed. at 6 PM"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun))"
    r"[.!?](?=\s|$)|[;—]|[^\S\n]-\s"
    # an en dash is a range between figures, times and dates ("9–12", "9 am–12 pm", "June 3 – June 6")
    rf"|(?<!(?:\d|am|pm|(?:{_MONTHS})[a-z]*\.?)\s?)–|–(?!\s?(?:\d|{_MONTHS}))"
)
# Clause boundaries inside a sentence: a trigger's scope ends there, and binding reads one clause.
# A conjunction after a comma, or "but", starts a new clause; a list ("chapter 4, and chapter 7")
# does not, unless a new subject follows the "and".
CLAUSE_BREAK = (
    r",\s*(?=(?:but|while|whereas|so|though|although|yet)\b)|(?<!\banything )(?<!\beverything )(?<!\bany \w{1,12} )\bbut\b"
    r"|,\s*(?=and\s+(?:the|it|it's|its|that|this|he|she|they|we|you|i|there|your|his|her|their|our|\w+'s)\b)"
    # a line break (a markdown bullet, a bold label's line) ends a clause, not the sentence: a
    # value set out over lines ("**Date:** March 18\n**Time:** 10:00") is still one mention
    r"|\n"
    # a colon before a new subject and verb starts a clause: "only the time: it now leaves at 10:40"
    r"|:\s*(?=(?:it|it's|they|they're|he|she|we|there|this|that)\s)"
)
