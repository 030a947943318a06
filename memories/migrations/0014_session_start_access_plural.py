"""A session starts when its first event happened: sessions recorded before ingest said so
started when they were first written to (an import of October's call said December).
And the admin names reads "memory accesses"."""

from django.db import migrations

FORWARD = """
UPDATE memories_session s SET started_at = e.first
FROM (
    SELECT session_id, min(observed_at) AS first FROM memories_event
    WHERE session_id IS NOT NULL GROUP BY session_id
) e
WHERE s.id = e.session_id AND e.first < s.started_at
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0013_lexeme_counts")]

    # Backwards: nothing to undo (the ingest times are not kept).
    operations = [
        migrations.RunSQL(FORWARD, migrations.RunSQL.noop),
        migrations.AlterModelOptions(
            name="memoryaccess", options={"verbose_name_plural": "memory accesses"}
        ),
    ]
