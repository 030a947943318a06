"""Webhooks: memory and review events sent to the URLs a tenant registered.

- ``events``: what each event says, built where it happens (one function per event, each
  called by the one service that makes it happen: ingest, opening a conflict review,
  deciding a review, erasing a client), stored as one delivery per endpoint in that
  service's transaction and sent once it commits.
- ``signing``: the signature every delivery carries (HMAC-SHA256 of timestamp and body
  under the endpoint's secret) and how a receiver checks it.
- ``delivery``: one attempt (claimed, sent with a timeout, recorded), retries with
  backoff, and the job that sends what is due.
- ``endpoints``: registering and removing a tenant's endpoints.

An encrypted tenant's deliveries carry no word a client said unless the tenant allows it
(``Tenant.webhook_plaintext_allowed``); what they carry is sealed at rest like the rest.
"""
