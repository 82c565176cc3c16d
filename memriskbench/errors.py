"""Error types that name the file, line, episode and field path of bad input."""

from __future__ import annotations


class MemRiskError(Exception):
    """Base class for every error that the CLI reports as one clean line."""


class EpisodeError(MemRiskError):
    """A problem in one episode file, located as precisely as the input allows."""

    def __init__(
        self,
        message: str,
        *,
        file: str = "",
        episode: str = "",
        field: str = "",
        line: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.episode = episode
        self.field = field
        self.line = line
        super().__init__(self.render())

    def render(self) -> str:
        where = self.file or "<episode>"
        if self.line is not None:
            where += f":{self.line}"
        parts = [where]
        parts.append(f"episode={self.episode or '?'}")
        if self.field:
            parts.append(f"field={self.field}")
        return " ".join(parts) + f": {self.message}"


class TraceError(MemRiskError):
    """A trace that cannot be trusted: unparsable, truncated, or with a broken hash chain."""

    def __init__(self, message: str, *, file: str = "", line: int | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        where = file or "<trace>"
        if line is not None:
            where += f":{line}"
        super().__init__(f"{where}: {message}")
