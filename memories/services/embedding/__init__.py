"""Vectors: the provider chain (``providers``), the shipped local model (``local_model``),
embedding spaces and their indexes (``vector_index``), and re-embedding (``reembed``).
"""
