"""What only the LongBench-Cite benchmark needs, shared by its task, solver and scorers.

LongCite's pinned files (:mod:`inspect_cite.longcite.files`: the data, the one-shot prompt,
the grader prompts' source files), the context split into numbered sentence chunks
(:mod:`inspect_cite.longcite.chunks`), the prompts read from LongCite's own files
(:mod:`inspect_cite.longcite.prompts`) and answers read as ``<statement>`` with
``<cite>[a-b]</cite>`` (:mod:`inspect_cite.longcite.statements`). The definitions are
LongCite's code at the pinned commit (docs/longcite.md); the rest of the core never imports
this room.
"""
