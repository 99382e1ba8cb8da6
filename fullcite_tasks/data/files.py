"""Reading the JSON and JSON Lines files of the FullCite data, with errors that name the place."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def read_json(path: Path, what: str, error: type[Exception], missing_hint: str) -> Any:
    """Parse a JSON file, raising ``error`` naming ``what`` and the file when it cannot."""
    if not path.exists():
        raise error(f"{what} {path} does not exist{missing_hint}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise error(f"{what} {path} is not valid JSON: {e}") from e


def read_jsonl(
    path: Path, what: str, error: type[Exception], flag: str
) -> Iterator[tuple[str, Any]]:
    """Parsed non-blank lines of a JSON Lines file as ``("<file>:<line>", value)``."""
    if not path.exists():
        raise error(f"{what} {path} does not exist ({flag})")
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as e:
                raise error(f"{where}: not valid JSON ({e})") from e
