"""ALCE prompt files and construction, re-exported from the shared core.

The definitions live in ``inspect_cite.alce_prompts`` so that solvers can rebuild ALCE prompts
without importing tasks; existing imports from this module keep working.
"""

from inspect_cite.alce_prompts import (
    ALCE_PROMPT_COMMIT,
    ALCE_PROMPT_URL,
    ALCE_REPO,
    PROMPT_DIR_ENV,
    PROMPT_SHA256,
    AlceDatasetName,
    AlcePromptBuilder,
    PromptFile,
    PromptFileError,
    PromptVariant,
    UseShorter,
    alce_prompt_path,
    demo_ids,
    make_demo,
    make_doc_prompt,
    official_prompt_path,
    prompt_dir_override,
    prompt_name,
    shorter_docs,
    shown_docs,
)

__all__ = [
    "ALCE_PROMPT_COMMIT",
    "ALCE_PROMPT_URL",
    "ALCE_REPO",
    "PROMPT_DIR_ENV",
    "PROMPT_SHA256",
    "AlceDatasetName",
    "AlcePromptBuilder",
    "PromptFile",
    "PromptFileError",
    "PromptVariant",
    "UseShorter",
    "alce_prompt_path",
    "demo_ids",
    "make_demo",
    "make_doc_prompt",
    "official_prompt_path",
    "prompt_dir_override",
    "prompt_name",
    "shorter_docs",
    "shown_docs",
]
