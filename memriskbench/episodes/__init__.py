"""Stage 1, episodes: the episode format and everything that reads it.

The format's tables, the JSON schema, safe YAML, the loader and its field readers, the
cross-reference rules, the suite lint, the episode and world model, the scripted tools a world
offers, and the suite's counts. Reads YAML files; hands `Episode` objects to every later stage.

May import: `common` and the root modules.
"""
