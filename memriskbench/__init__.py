"""memriskbench: a deterministic benchmark of memory risks in LLM agents, with no LLM judge."""

__version__ = "0.1.0"
TRACE_SCHEMA_VERSION = 1
