"""Checking the report's charts as they are saved: nothing drawn sticks out of the figure."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass
class SavedCharts:
    """What ``checked_charts`` saw: each chart's visible texts and the charts that overflow."""

    outside: list[str] = field(default_factory=list)
    texts: dict[str, list[str]] = field(default_factory=dict)


def checked_charts(monkeypatch: pytest.MonkeyPatch) -> SavedCharts:
    """Patches ``Figure.savefig`` to record, for every chart saved, its texts and overflow."""
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    seen = SavedCharts()
    savefig = Figure.savefig

    def checked_savefig(fig: Any, path: Any, *args: Any, **kwargs: Any) -> Any:
        fig.canvas.draw()
        box, (width, height) = fig.get_tightbbox(), fig.get_size_inches()
        if box.x0 < -0.01 or box.y0 < -0.01 or box.x1 > width + 0.01 or box.y1 > height + 0.01:
            seen.outside.append(Path(path).name)
        seen.texts[Path(path).name] = [t.get_text() for t in fig.findobj(Text) if t.get_visible()]
        return savefig(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checked_savefig)
    return seen
