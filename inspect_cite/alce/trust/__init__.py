"""TRUST-SCORE (Song et al., ICLR 2025): grounded refusals, calibrated correctness, citations.

Scored exactly as the authors' trust-eval 0.1.5 by default (:mod:`inspect_cite.alce.trust.metrics`),
with refusals detected as trust-eval does (:mod:`inspect_cite.alce.trust.refusal`). The authors'
refusal-instructed prompt files are pinned in :mod:`inspect_cite.alce.trust.prompts`.
"""
