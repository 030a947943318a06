"""What an event says: the heuristic extractor (``heuristic``) with its clause reader,
cue tables and vocabularies, normalisation and time expressions, the optional LLM
extractor (``llm``), and word-level comparison for the batch jobs (``wording``).
"""
