"""FullCite benchmarks as Inspect tasks (BioASQ, ASQA, ExpertQA)."""
