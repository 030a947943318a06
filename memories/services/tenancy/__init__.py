"""Tenants and who acts in them: members and advisor assignments, API keys, encrypted
mode and key rotation, and the audit trail.
"""
