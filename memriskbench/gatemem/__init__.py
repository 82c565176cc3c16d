"""GateMem: its files imported as episodes, and its own scoring rules (aux, gated, lenient).

Reads GateMem's domain folders and builds `Episode` objects through the episode loader; the judge
and the results read its rules. May import: `episodes`, `common` and the root modules.
"""
