"""The trace viewer: a static site (`memriskbench view`) built from traces, their verdicts and
the report's figures."""
