from django.db import migrations, models


class Migration(migrations.Migration):
    # A plain index, built under the migration's lock: on a memory table of a hundred
    # thousand rows it takes well under a second, and unlike a concurrent build it can
    # be unapplied inside a transaction as every other migration here can.
    dependencies = [
        ("memories", "0023_event_embedding"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["client", "category"], name="memory_client_category"),
        ),
    ]
