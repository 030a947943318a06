"""Encrypted tenants (seed 003: the server may process plaintext in memory, never store it).

- ``providers``: the master key behind a pluggable ``KeyProvider`` (wrap/unwrap), the
  local one reading ``MEMORYHUB_MASTER_KEY``; ``MEMORYHUB_KEY_PROVIDER`` names another
  (a KMS).
- ``keys``: per-client data keys and per-tenant index keys, stored wrapped.
- ``sealing``: the versioned ciphertext format and AES-256-GCM with those keys.
- ``fields``: model fields that seal on save for encrypted tenants and open on load.
- ``blind``: the keyed blind index (hashed stems) and the keyed dedup hash.
- ``queryset``: ``update()``/``bulk_update()`` that seal like ``save()`` does.
- ``switch``: seal or not, asked of the database at write time (``tenant_encrypt``'s race).
"""
