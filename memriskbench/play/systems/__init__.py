"""Systems under test: scripted reference agents and (later) local GGUF models."""
