"""Every memory's search vector carries its client's lexeme (see records.client_lexeme).

The search vector is ADD-only content; this one-time rewrite opens the documented door for
the duration of the migration's transaction only."""

from django.db import migrations

FORWARD = r"""
SELECT set_config('memoryhub.allow_rewrite', 'on', true);
UPDATE memories_memory
   SET search_vector = coalesce(search_vector, ''::tsvector)
       || to_tsvector('simple', 'c' || replace(client_id::text, '-', ''))
 WHERE NOT coalesce(search_vector, ''::tsvector)
       @@ to_tsquery('simple', 'c' || replace(client_id::text, '-', ''));
SELECT set_config('memoryhub.allow_rewrite', 'off', true);
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0005_memory_access")]

    operations = [migrations.RunSQL(FORWARD, migrations.RunSQL.noop)]
