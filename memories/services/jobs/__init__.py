"""Background jobs: the registry and run log (``runner``), the claims that make them safe
to run twice or at once (``claims``), and one module per job.
"""
