"""FullCite data: BioASQ (+ PubMed abstracts), ASQA (ALCE's file), ExpertQA, and gold spans."""
