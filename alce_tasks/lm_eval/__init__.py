"""lm-evaluation-harness task configs for ALCE (``alce_asqa``, ``alce_qampari``, ``alce_eli5``).

Pass this directory to ``lm_eval run --include_path``; ``inspect-cite lm-eval-path`` prints it.
Generation runs on lm-eval's models; scoring runs this project's ALCE definitions, so both
frameworks give the same numbers on the same outputs.
"""

from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent
