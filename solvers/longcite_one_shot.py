"""LongBench-Cite's answer prompt: the numbered context, the question, cite as ``[a-b]``."""

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.evidence.documents import get_docs
from inspect_cite.longcite.chunks import numbered_passage
from inspect_cite.longcite.prompts import one_shot_prompt
from inspect_cite.options.cli_values import accept_cli_values
from solvers.thinking import thinking_generate


@solver
@accept_cli_values("-S")
def longcite_one_shot(prompt_file: str | None = None, thinking: bool = False) -> Solver:
    """Answer LongBench-Cite's one-shot prompt (``pred_one_shot.py``) in one generation.

    The sample's documents (``metadata["docs"]``, in order) are the context's chunks: each is
    shown after its marker ``<C{i}>``, and the passage and the question
    (``metadata["question"]``, else the input) fill LongCite's ``one_shot_prompt.txt``, sent
    as the only user message. The prompt file is LongCite's at the pinned commit
    (:mod:`inspect_cite.longcite.files`).

    Args:
        prompt_file: A prompt file of one's own in the same format (``<<context>>`` and
            ``<<question>>`` slots) instead of LongCite's.
        thinking: Generate with the chat template's thinking on (see
            ``inspect_cite.generation.thinking``; off by default).

    """
    prompt = one_shot_prompt(prompt_file)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        generate = thinking_generate(state, generate, thinking)
        docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
        question = str(state.metadata.get("question") or state.input_text)
        text = prompt.fill(numbered_passage([d["text"] for d in docs]), question)
        state.messages = [ChatMessageUser(content=text)]
        return await generate(state)

    return solve
