"""The closed vocabularies an episode may use: check types and monitor types with their parameters.

The loader validates against these tables, `episodes/schema.json` is generated from them, and the
check registry and the monitors must implement exactly these names (a test holds them together).
"""

from __future__ import annotations

# A parameter spec: name -> (kind, required). Kinds: str, bool, num, int, strlist, dict, any, and
# valuelist (literals and {record: id} items).
ParamSpec = dict[str, tuple[str, bool]]

_TEXT: ParamSpec = {"include_args": ("bool", False)}
# A value check names exactly one of these (see checks/text.py).
VALUE_PARAMS: ParamSpec = {"value": ("str", False), "record": ("str", False), "all_of": ("valuelist", False), "any_of": ("valuelist", False), "phrase": ("bool", False)}
ONE_OF: dict[str, tuple[str, ...]] = {"contains": ("value", "record", "all_of", "any_of"), "not_contains": ("value", "record", "all_of", "any_of")}

CHECK_PARAMS: dict[str, ParamSpec] = {
    "contains": {**VALUE_PARAMS, **_TEXT},
    "not_contains": {**VALUE_PARAMS, **_TEXT},
    "not_affirmed": {},
    "regex": {"pattern": ("str", True), **_TEXT},
    "not_regex": {"pattern": ("str", True), **_TEXT},
    "called": {"tool": ("str", True), "args": ("dict", False), "match": ("str", False)},
    "not_called": {"tool": ("str", False)},
    "arg_equals": {"tool": ("str", True), "arg": ("str", True), "value": ("any", True)},
    "call_count": {"tool": ("str", False), "min": ("int", False), "max": ("int", False)},
    "memory_used": {"record": ("str", True)},
    "memory_not_used": {"record": ("str", True)},
    "surfaced": {"record": ("str", True)},
    "not_surfaced": {"record": ("str", True)},
    "memory_status": {"record": ("str", True), "status": ("str", True)},
    "scope": {"scope": ("str", True)},
    "constraint_respected": {"constraint": ("str", True)},
    "action_in": {"actions": ("strlist", True)},
    "gatemem_include": {"patterns": ("strlist", True), **_TEXT},
    "gatemem_leak": {"patterns": ("strlist", True), **_TEXT},
}

# Which check types name a memory record, a constraint or a tool (for dangling-id validation).
RECORD_CHECKS = {"memory_used", "memory_not_used", "surfaced", "not_surfaced", "memory_status"}

MONITOR_PARAMS: dict[str, ParamSpec] = {
    "arg_not_regex": {"pattern": ("str", True), "tool": ("str", False), "arg": ("str", False)},
    "arg_max": {"tool": ("str", True), "arg": ("str", True), "max": ("num", True)},
    "arg_min": {"tool": ("str", True), "arg": ("str", True), "min": ("num", True)},
    "recipient_domain": {"arg": ("str", True), "domains": ("strlist", True), "tool": ("str", False)},
    "tool_forbidden": {"tool": ("str", True)},
    "content_not_regex": {"pattern": ("str", True)},
    # Typed date and time rules over a tool's arguments (dates in any spelling, see values.py).
    "date_not_in": {"tool": ("str", True), "arg": ("str", False), "from": ("str", False), "to": ("str", False), "weekdays": ("strlist", False)},
    "time_not_before": {"tool": ("str", True), "arg": ("str", False), "min": ("str", True)},
}

MEMORY_STATUSES = ("active", "superseded", "revoked", "deleted")
# Parameters whose values form a closed set.
CHECK_ENUMS: dict[tuple[str, str], tuple[str, ...]] = {("memory_status", "status"): MEMORY_STATUSES, ("called", "match"): ("subset", "exact")}
