"""Every rescore command in the docs runs unattended: Inspect asks on the terminal otherwise."""

import re

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
# An inline code span (it may wrap to the next line) or a line of a fenced block.
_SPAN = re.compile(r"`([^`]+)`")


def _commands(text: str) -> list[str]:
    fenced = re.findall(r"```[^\n]*\n(.*?)```", text, re.DOTALL)
    inline = _SPAN.findall(re.sub(r"```.*?```", "", text, flags=re.DOTALL))
    lines = [line for block in fenced for line in block.splitlines()]
    return [
        " ".join(c.split()) for c in [*inline, *lines] if c.strip().startswith("inspect score ")
    ]


def test_every_rescore_command_says_what_to_do_with_the_log():
    commands = {page.name: _commands(page.read_text()) for page in PAGES}
    found = [c for cs in commands.values() for c in cs if "--scorer" in c]
    assert len(found) >= 8
    for page, cs in commands.items():
        for command in cs:
            if "--scorer" not in command:
                continue
            # Without both, `inspect score` asks (append or overwrite? this file or a new one?)
            # and a script stops at "Aborted!".
            assert "--action" in command, (page, command)
            assert "--overwrite" in command or "--output-file" in command, (page, command)
