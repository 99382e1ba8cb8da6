"""ALCE benchmarks as Inspect tasks.

Registered as ``alce_tasks/asqa``, ``alce_tasks/qampari`` and ``alce_tasks/eli5`` (each with
``-T trust=true`` for TRUST-SCORE), and ``alce_tasks/expertqa`` (TRUST-SCORE's ExpertQA).
"""

from alce_tasks.asqa import asqa
from alce_tasks.eli5 import eli5
from alce_tasks.expertqa import expertqa
from alce_tasks.qampari import qampari

__all__ = ["asqa", "eli5", "expertqa", "qampari"]
