"""tests/support/snapshot.py notices any added, removed or changed row, per tenant if asked."""

import pytest

from memories.models import Client
from tests.support import factories
from tests.support.snapshot import take, unchanged

pytestmark = pytest.mark.django_db


def test_a_snapshot_notices_additions_changes_and_removals(personas):
    before = take()
    assert take().changes(before) == []
    extra = factories.ClientFactory.create(tenant=personas.tenant, external_ref="new")
    assert take().changes(before) == ["memories.Client: 5 → 6 rows, contents changed"]
    extra.delete()
    Client.objects.filter(pk=personas.client.pk).update(display_name="Renamed")
    assert take().changes(before) == ["memories.Client: 5 → 5 rows, contents changed"]


def test_a_tenant_snapshot_sees_only_that_tenant(personas):
    before = take(tenant=personas.tenant)
    factories.ClientFactory.create(tenant=personas.other_tenant, external_ref="elsewhere")
    assert take(tenant=personas.tenant).changes(before) == []
    factories.MemoryFactory.create(client=personas.client)
    assert take(tenant=personas.tenant).changes(before) == [
        "memories.Memory: 0 → 1 rows, contents changed"
    ]


def test_unchanged_fails_when_something_changed(personas):
    with pytest.raises(AssertionError, match=r"memories\.Client"), unchanged():
        factories.ClientFactory.create(tenant=personas.tenant)
