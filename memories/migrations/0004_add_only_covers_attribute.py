"""The attribute a memory is about is part of its content: ADD-only covers it too."""

from django.db import migrations

FUNCTION = r"""
CREATE OR REPLACE FUNCTION memories_memory_add_only() RETURNS trigger
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
        NEW.run_id, NEW.attribute, NEW.attribute_value, NEW.negated)
       IS DISTINCT FROM
       (OLD.id, OLD.tenant_id, OLD.client_id, OLD.kind, OLD.category, OLD.title, OLD.content,
        OLD.content_hash, OLD.language, OLD.search_vector, OLD.observed_at, OLD.created_at,
        OLD.source_kind, OLD.source_ref, OLD.origin_agent, OLD.project_id, OLD.task_id,
        OLD.run_id, OLD.attribute, OLD.attribute_value, OLD.negated)
    THEN
        RAISE EXCEPTION 'memory % content is immutable (ADD-only)', OLD.id
            USING ERRCODE = 'restrict_violation',
                  HINT = 'Write a new memory that updates (supersedes) this one.';
    END IF;
    RETURN NEW;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("memories", "0003_memory_attribute_evidence_action")]

    operations = [migrations.RunSQL(FUNCTION, migrations.RunSQL.noop)]
