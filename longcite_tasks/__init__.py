"""LongBench-Cite as an Inspect task.

Registered as ``longcite_tasks/longbench_cite``.
"""

from longcite_tasks.longbench_cite import longbench_cite

__all__ = ["longbench_cite"]
