"""What Inspect's log viewer shows for an explanation's markdown, without a browser.

A model of the viewer's rendering (inspect_ai 0.3.285, ``markdownPipeline.renderFullPipelineMarkdown``)
on markdown-it-py, the Python port of the markdown-it the viewer runs: HTML characters become
entities first, a line like ``a) text`` becomes a raw HTML paragraph, ``[label]: text`` loses
its colon, then markdown-it renders with ``breaks`` and ``html`` on (the ``js-default`` preset:
tables and strikethrough) and ``$...$`` math. ``tests/cli/test_viewer.py`` checks the real viewer
in Chromium; this model lets property tests try thousands of texts in a second.
"""

import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

_HTML_CHARS = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;"}
_LETTER_LIST = re.compile(r"^([a-zA-Z][).]\s.*?)$", re.MULTILINE)
_DEFINITION = re.compile(r"\[([^\[\]\n]*)\]: (?!http)([^\n]*)")


def _renderer() -> MarkdownIt:
    md = MarkdownIt("js-default", {"breaks": True, "html": True})
    try:
        from mdit_py_plugins.dollarmath import dollarmath_plugin
    except ImportError:  # math is then not modelled; the escaped "$" still renders as "$"
        return md
    return md.use(dollarmath_plugin, allow_space=False, allow_digits=False)


_MD = _renderer()


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.bold: list[str] = []
        self._depth = 0
        self.math = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "br":
            self.parts.append("\n")
        if tag == "strong":
            self._depth += 1
            self.bold.append("")
        if tag in ("eq", "eqn") or any(v and "math" in v for _, v in attrs):
            self.math = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "strong":
            self._depth -= 1
        if tag in ("p", "li", "h1", "h2", "h3", "tr", "pre"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        if self._depth:
            self.bold[-1] += data


def render(markdown: str) -> tuple[str, list[str], bool]:
    """The viewer's HTML text for ``markdown``: (text, the text of each bold run, any math)."""
    text = "".join(_HTML_CHARS.get(c, c) for c in markdown)
    text = _LETTER_LIST.sub(r"<p class='markdown-ordered-list-item'>\1</p>", text)
    text = _DEFINITION.sub(r"(open)\1(close) \2 ", text)
    rendered = _MD.render(text).replace("(open)", "[").replace("(close)", "]")
    parser = _Text()
    parser.feed(rendered)
    return "".join(parser.parts), parser.bold, parser.math


def shown(markdown: str) -> str:
    """The text the viewer shows for ``markdown``, each run of whitespace as one space."""
    return " ".join(render(markdown)[0].split())
