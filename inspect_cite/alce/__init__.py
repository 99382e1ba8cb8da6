"""What only the ALCE benchmark needs, shared by its tasks, solvers, scorers and ``alce-eval``.

ALCE's prompt files and prompt construction (:mod:`inspect_cite.alce.prompts`), the fields an
ALCE item must hold (:mod:`inspect_cite.alce.items`), the paper's run configurations
(:mod:`inspect_cite.alce.run_configs`) and citation recall and precision
(:mod:`inspect_cite.alce.autoais`). ALCE's ``[n]`` markers are a citation format, in
:mod:`inspect_cite.citations.alce`. The rest of the core never imports this room.
"""
