"""The write path: event in → extract → embed → dedup → relate → persist (``ingest``),
its vectors (``vectors``), what each statement becomes (``outcomes``), where it stands
against memory (``relate``), the ADD-only records (``records``) and a memory's state
changes on request (``lifecycle``).
"""
