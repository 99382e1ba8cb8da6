"""The agent strategy's record of what its tools returned (written by its solver, read by scorers).

``solvers/agent_citations`` writes it; the citation scorers read it.

``state.metadata["agent"]["returned"]`` maps each document id a tool returned (``search``
listed it or ``read`` showed it) to how it first came back. A citation of any other document
of the sample is **invalid**: the model cites something it never saw. FullCite's scorers give
such a citation the status ``not_retrieved`` (wrong in Doc-F1, no Snippet-F1 credit, no
evidence for ``claim_support``); ALCE's ``citation_nli`` treats it as an out-of-range citation
(the statement is unsupported, as eval.py judges an invalid citation). Samples of other
strategies carry no record, and nothing changes for them.
"""

from collections.abc import Mapping
from typing import Any, Final, Literal

AGENT_KEY: Final = "agent"
"""The sample metadata key of the agent's record."""

ReturnedBy = Literal["search", "read"]
"""The tool that first returned a document."""


def returned_doc_ids(metadata: Mapping[str, Any] | None) -> set[str] | None:
    """The document ids the agent's tools returned; None for a sample of another strategy.

    A record that is not well-formed counts as none (never raised on).
    """
    record = (metadata or {}).get(AGENT_KEY)
    returned = record.get("returned") if isinstance(record, Mapping) else None
    if not isinstance(returned, Mapping):
        return None
    return {str(doc_id) for doc_id in returned}
