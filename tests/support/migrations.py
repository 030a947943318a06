"""Moving the test database along the migration graph inside a test's transaction."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(target: tuple[str, str]) -> None:
    """Migrate to ``target``. The rows a test wrote leave deferred foreign-key checks
    pending, and PostgreSQL refuses to ALTER a table that has them: they are checked now."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    MigrationExecutor(connection).migrate([target])


def latest(app: str = "memories") -> tuple[str, str]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes(app)[0]
