"""FullCite benchmarks as Inspect tasks.

Registered as ``fullcite_tasks/bioasq``, ``fullcite_tasks/asqa``, ``fullcite_tasks/expertqa``
and ``fullcite_tasks/annotate_spans`` (the gold-span annotation step).
"""

from fullcite_tasks.annotate_spans import annotate_spans
from fullcite_tasks.asqa import asqa
from fullcite_tasks.bioasq import bioasq
from fullcite_tasks.expertqa import expertqa

__all__ = ["annotate_spans", "asqa", "bioasq", "expertqa"]
