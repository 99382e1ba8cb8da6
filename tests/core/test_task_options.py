"""One idiom for a task option and a strategy, shared by both benchmarks.

- a ``-T`` choice is validated from its ``Literal`` and refused in one message form
  (``inspect_cite.options.task_options.check_choice``);
- each benchmark's strategies are one table in its own module.
"""

from typing import get_args

import pytest

import alce_tasks
import fullcite_tasks
from inspect_cite.checks.errors import PreflightError


def refusal(build) -> str:
    with pytest.raises(PreflightError) as e:
        build()
    return str(e.value)


def test_each_benchmark_has_one_strategy_table_naming_every_strategy():
    from alce_tasks.strategies import STRATEGIES as ALCE
    from alce_tasks.strategies import Strategy as AlceStrategy
    from fullcite_tasks.strategies import STRATEGIES as FULLCITE
    from fullcite_tasks.strategies import Strategy as FullciteStrategy

    assert list(ALCE) == list(get_args(AlceStrategy))
    assert list(FULLCITE) == list(get_args(FullciteStrategy))


def test_both_benchmarks_refuse_an_unknown_choice_in_one_form(own_prompts, tmp_path):
    from alce_tasks.strategies import STRATEGIES as ALCE
    from fullcite_tasks.strategies import STRATEGIES as FULLCITE

    # Refused before any data is read or model checked.
    missing = str(tmp_path / "missing.json")
    alce = refusal(lambda: alce_tasks.asqa(dataset_path=missing, nli="nope", strategy="magic"))
    fullcite = refusal(lambda: fullcite_tasks.asqa(dataset_path=missing, strategy="magic"))
    assert alce == f"-T strategy=magic: unknown strategy; use one of {', '.join(ALCE)}"
    assert fullcite == f"-T strategy=magic: unknown strategy; use one of {', '.join(FULLCITE)}"
    assert refusal(lambda: fullcite_tasks.asqa(dataset_path=missing, doc_order="random")) == (
        "-T doc_order=random: unknown document order; use one of retrieval, shuffled, reversed"
    )
