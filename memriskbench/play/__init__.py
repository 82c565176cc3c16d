"""Stage 2, play: a system plays episodes and every decision goes to a trace.

The runner, the parsed actions, the local server helper, and `systems/` (reference agents,
memory strategies, prompts, model backends). Reads episodes; writes traces. It never scores.

May import: `traces`, `gatemem`, `episodes`, `common` and the root modules; never `judge`.
"""
