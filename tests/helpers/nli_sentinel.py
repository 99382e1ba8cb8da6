"""A ``python:`` NLI module whose import the security tests watch for."""


def entail(premise: str, hypothesis: str) -> bool:
    return hypothesis in premise
