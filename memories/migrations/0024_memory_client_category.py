from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    # Built concurrently: the memory table takes writes while its index is made.
    atomic = False

    dependencies = [
        ("memories", "0023_event_embedding"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="memory",
            index=models.Index(fields=["client", "category"], name="memory_client_category"),
        ),
    ]
