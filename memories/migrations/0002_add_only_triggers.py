"""ADD-only, enforced by PostgreSQL: events are never updated or deleted, memories are
never deleted and their content fields never updated. The one door is a transaction-local
setting, ``memoryhub.allow_rewrite = on``, opened only by ``memories.db.content_rewrite``
(erasure and re-encryption)."""

from django.core.management import call_command
from django.db import migrations

FORWARD = r"""
CREATE FUNCTION memoryhub_rewrite_allowed() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT coalesce(current_setting('memoryhub.allow_rewrite', true), '') = 'on'
$$;

CREATE FUNCTION memories_event_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF memoryhub_rewrite_allowed() THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION 'event % is immutable: % is not allowed', OLD.id, TG_OP
        USING ERRCODE = 'restrict_violation',
              HINT = 'Events are the evidence of memory; only erasure may remove them.';
END;
$$;

CREATE TRIGGER memories_event_immutable
    BEFORE UPDATE OR DELETE ON memories_event
    FOR EACH ROW EXECUTE FUNCTION memories_event_immutable();

CREATE FUNCTION memories_memory_add_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF memoryhub_rewrite_allowed() THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'memory % cannot be deleted: set its status instead', OLD.id
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF (NEW.id, NEW.tenant_id, NEW.client_id, NEW.kind, NEW.category, NEW.title, NEW.content,
        NEW.content_hash, NEW.language, NEW.search_vector, NEW.observed_at, NEW.created_at,
        NEW.source_kind, NEW.source_ref, NEW.origin_agent, NEW.project_id, NEW.task_id,
        NEW.run_id)
       IS DISTINCT FROM
       (OLD.id, OLD.tenant_id, OLD.client_id, OLD.kind, OLD.category, OLD.title, OLD.content,
        OLD.content_hash, OLD.language, OLD.search_vector, OLD.observed_at, OLD.created_at,
        OLD.source_kind, OLD.source_ref, OLD.origin_agent, OLD.project_id, OLD.task_id,
        OLD.run_id)
    THEN
        RAISE EXCEPTION 'memory % content is immutable (ADD-only)', OLD.id
            USING ERRCODE = 'restrict_violation',
                  HINT = 'Write a new memory that updates (supersedes) this one.';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER memories_memory_add_only
    BEFORE UPDATE OR DELETE ON memories_memory
    FOR EACH ROW EXECUTE FUNCTION memories_memory_add_only();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS memories_memory_add_only ON memories_memory;
DROP FUNCTION IF EXISTS memories_memory_add_only();
DROP TRIGGER IF EXISTS memories_event_immutable ON memories_event;
DROP FUNCTION IF EXISTS memories_event_immutable();
DROP FUNCTION IF EXISTS memoryhub_rewrite_allowed();
"""


def create_cache_table(apps, schema_editor):
    # The database cache lets the web process read the worker cluster's stats.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial")]

    operations = [
        migrations.RunSQL(FORWARD, BACKWARD),
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
