"""Text shown in a score's explanation: markdown, with the cited spans in bold."""

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_<>#|])")


def highlight_markdown(text: str, spans: "list[tuple[int, int]]") -> str:
    """``text`` as markdown with the character ``spans`` (citations) in bold, the rest escaped.

    Used by scorer explanations so the log viewer shows the answer with its citations marked.
    """
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)  # adjacent citations share one bold run
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[pos:start]))
        out.append("**" + _MARKDOWN_SPECIAL.sub(r"\\\1", text[start:end]) + "**")
        pos = end
    out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", text[pos:]))
    return "".join(out)
