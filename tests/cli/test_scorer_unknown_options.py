"""Every scorer refuses an ``-S`` option it does not take with the project's one-line message.

Issue 40, item 3: ``inspect score --scorer scorers/doc_snippet_f1 -S min_rouge=5`` printed
Python's ``TypeError`` traceback, since the scorers without options were not built through
``accept_cli_values``; every other argument error already reached the user as a refusal.
"""

import importlib
import pkgutil

import pytest
from inspect_ai.util import registry_info

import scorers
from inspect_cite.checks.errors import ArgumentTypeError


def _factories() -> list:
    found = []
    for module in pkgutil.iter_modules(scorers.__path__):
        if module.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"scorers.{module.name}")
        for value in vars(loaded).values():
            try:
                info = registry_info(value)
            except Exception:
                continue
            if info.type == "scorer" and value.__module__ == loaded.__name__:
                found.append(value)
    return found


FACTORIES = _factories()


def test_every_scorer_module_is_covered():
    names = {registry_info(f).name.split("/")[-1] for f in FACTORIES}
    assert {"doc_snippet_f1", "native_counts", "span_agreement", "citation_nli"} <= names


@pytest.mark.parametrize("factory", FACTORIES, ids=lambda f: registry_info(f).name)
def test_an_unknown_option_is_refused_by_name(factory):
    name = registry_info(factory).name.split("/")[-1]
    with pytest.raises(ArgumentTypeError) as refused:
        factory(bogus_option=1)
    message = str(refused.value)
    assert message.startswith(
        f"-S bogus_option=1: unexpected keyword argument 'bogus_option' for {name}; "
    ), message
    assert message.endswith("it takes no options") or "its options are " in message


def test_a_scorer_without_options_says_so():
    from scorers.doc_snippet_f1 import doc_snippet_f1

    with pytest.raises(ArgumentTypeError, match=r"for doc_snippet_f1; it takes no options$"):
        doc_snippet_f1(min_rouge=5)
