"""The vocabulary the value matcher reads: weekday and month names, filler words, and everyday
words too common to check on their own. One place, so the scanner, the checks and the reference
agents agree."""

# fmt: off
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)

# Filler: articles and prepositions; a part of the day and a time zone, which a date or time
# argument cannot carry ("Thursday night" is stated by a calendar entry on a Thursday).
STOPWORDS = frozenset((
    "a", "an", "the", "at", "on", "in", "of", "for", "to", "and", "or", "by", "with", "from",
    "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "as", "per", "our",
    "your", "my", "his", "her", "their", "please", "there", "here", "morning", "afternoon",
    "evening", "night", "tonight", "utc", "gmt",
))

# A value checked wherever it appears must be distinctive: a lone weekday, a round time, a small
# number or an everyday word turns up in correct replies by chance.
COMMON_WORDS = frozenset((
    "yes", "no", "ok", "okay", "none", "all", "any", "some", "today", "tomorrow", "yesterday",
    "week", "weekend", "weekday", "day", "days", "time", "times", "hour", "hours", "minute",
    "minutes", "month", "year", "now", "soon", "later", "next", "last", "new", "old", "open",
    "closed", "done", "pending", "approved", "declined", "cancelled", "fine", "good", "bad",
    "same", "other", "home", "office", "room", "desk", "door", "floor", "front", "back", "left",
    "right", "up", "down", "early", "late", "daily", "weekly", "monthly", "once", "twice",
    "every", "each", "only", "also", "still", "both", "half", "full", "small", "large",
))
# Words a value carries beside what identifies it: a label ("room 309", "Visa card ending 4092",
# "PayWallet account PW-8830-1177") or a title ("Dr. Varga"). A check compares values, so a
# text that gives the identifying atoms states the value without them ("Kai's in 309", "Visa ••••
# 4092", "Varga is on call"). A label is left out only beside a distinctive figure or
# identifier, a title only beside a name, the range words ("between 13:00 and 15:00") only beside
# two other figures.
VALUE_LABELS = frozenset((
    "room", "rm", "gate", "floor", "extension", "ext", "seat", "row", "platform", "pager", "bay",
    "dock", "locker", "bed", "ward", "pin", "code", "order", "case", "ticket", "invoice", "ref",
    "reference", "account", "card", "ending", "flight", "box", "po",
))
VALUE_TITLES = frozenset(("dr", "doctor", "ms", "mr", "mrs", "prof", "professor"))
RANGE_WORDS = frozenset(("between", "until", "till"))
# fmt: on
