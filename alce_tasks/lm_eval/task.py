"""The ALCE lm-eval tasks' class: lm-eval's ConfigurableTask, plus what a task file cannot say.

The task files (``alce_*.yaml``) name it with ``class: !function task.AlceTask``; everything
else is in the files and :mod:`alce_tasks.lm_eval.utils`.
"""

from typing import Any

from lm_eval.api.task import ConfigurableTask
from lm_eval.models.utils import normalize_gen_kwargs

from alce_tasks.lm_eval.context import cut_reason
from alce_tasks.lm_eval.utils import DEFAULT_SHOT, not_scored


class AlceTask(ConfigurableTask):
    """An ALCE task whose prompt holds its demonstrations, scored nan where lm-eval cut it.

    - lm-eval's ``n-shot`` column is the task's ``num_fewshot``: 0 in the task files, since
      the demonstrations are in the prompt the task builds (as run.py's) and lm-eval must add
      none of its own (it ignores ``--num_fewshot`` on a task set to 0). The results report
      the demonstrations the prompt holds instead (``--metadata shot``, default 2).
    - A prompt lm-eval's model cut to fit its context is nan with the reason, never a score
      (:mod:`alce_tasks.lm_eval.context`).

    Args:
        config: The task file's configuration, as lm-eval passes it.

    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        # `class` chose this class; the configuration has no such field.
        super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"})

    def dump_config(self) -> dict[str, Any]:
        """The configuration lm-eval reports, ``num_fewshot`` being the prompt's demonstrations."""
        dumped: dict[str, Any] = super().dump_config()
        docs = self.eval_docs
        if len(docs):
            dumped["num_fewshot"] = int(docs[0]["shots"])
        else:
            dumped["num_fewshot"] = int((self.config.metadata or {}).get("shot", DEFAULT_SHOT))
        return dumped

    def process_results(self, doc: dict[str, Any], results: list[str]) -> dict[str, float]:
        """The task file's scores, or every metric nan when lm-eval cut the prompt."""
        max_gen_toks = normalize_gen_kwargs(dict(self.config.generation_kwargs or {}))[
            "max_gen_toks"
        ]
        reason = cut_reason(doc["prompt_tokens"], doc["max_length"], int(max_gen_toks))
        if reason is not None:
            return not_scored(doc["dataset"], doc["question"], reason)
        scores: dict[str, float] = super().process_results(doc, results)
        return scores
