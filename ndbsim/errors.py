"""One error type for everything a user can get wrong, printed as one line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class InputError(Exception):
    """Bad input: the CLI prints ``str(error)`` as one line and exits with code 2.

    The message names the file (when known), the field, the value and the fix.
    """

    def __init__(self, message: str, *, field: str | None = None, source: str | None = None):
        self.field = field
        self.source = source
        self.message = " ".join(str(message).split())
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source:
            where += f"{self.source}: "
        if self.field:
            where += f"{self.field}: "
        return f"{where}{self.message}"

    def located(self, source: str) -> InputError:
        """The same error, attributed to a file."""
        return InputError(self.message, field=self.field, source=source)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A ' (did you mean X?)' hint, or '' when nothing is close."""
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if not match:
        lowered = {c.lower(): c for c in choices}
        if word.lower() in lowered:
            match = [lowered[word.lower()]]
    return f" (did you mean {match[0]!r}?)" if match else ""
