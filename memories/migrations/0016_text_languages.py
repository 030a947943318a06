"""Full text in each memory's own language: every memory's language is detected again
(``memories.languages``) and its search vector rebuilt in it, with its client's word
counts (``memories.services.write.text_reindex``: client by client, a transaction per
batch of 500, so the table is never locked whole and writers go on; the migration itself
is not one transaction). A tenant may also be French, German, Portuguese or Dutch.

An encrypted tenant's memories can only be read with the master key: without it they
keep their tenant's language (a query is always read in it too, so they are found as
before) until ``manage.py text_reindex`` runs with the key.
"""

import sys

from django.db import migrations, models


def _reindex(apps, schema_editor, *, tenant_language=False):
    from memories.crypto.providers import KeyUnavailable
    from memories.models import Tenant
    from memories.services.write.text_reindex import memories_text_reindex

    for tenant in Tenant.objects.only("id", "slug", "language", "encrypted").order_by("pk"):
        try:
            memories_text_reindex(tenants=[tenant], tenant_language=tenant_language)
        except KeyUnavailable:
            sys.stderr.write(
                f"\n  tenant {tenant.slug}: encrypted, and no master key here: run "
                f"`manage.py text_reindex --tenant {tenant.slug}` with it\n"
            )


def forward(apps, schema_editor):
    _reindex(apps, schema_editor)


def backward(apps, schema_editor):
    _reindex(apps, schema_editor, tenant_language=True)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("memories", "0015_webhooks"),
    ]

    operations = [
        migrations.AlterField(
            model_name="tenant",
            name="language",
            field=models.CharField(
                choices=[
                    ("english", "English"),
                    ("italian", "Italian"),
                    ("spanish", "Spanish"),
                    ("french", "French"),
                    ("german", "German"),
                    ("portuguese", "Portuguese"),
                    ("dutch", "Dutch"),
                    ("simple", "Simple (no stemming)"),
                ],
                default="english",
                max_length=16,
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
