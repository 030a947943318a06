"""Reads that are more than a filter: one module per thing read."""
