"""The snapshots other tests assert "nothing changed" with (tests/support/snapshot.py) see
each kind of change: a row added, a column changed, a row removed; in the whole database
and in one tenant's rows."""

import pytest

from memories.models import Client
from tests.support import factories
from tests.support.snapshot import take, unchanged

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("scope", ["whole", "tenant"])
def test_a_snapshot_sees_a_row_added_changed_and_removed(tenant, scope):
    def snap():
        return take() if scope == "whole" else take(tenant=tenant)

    start = snap()
    assert snap().changes(start) == []
    client = factories.ClientFactory.create(tenant=tenant, display_name="Emma")
    added = snap()
    assert added.changes(start) == ["memories.Client: 0 → 1 rows, contents changed"]
    Client.objects.filter(pk=client.pk).update(display_name="Emma Clarke")
    changed = snap()
    assert changed.changes(added) == ["memories.Client: 1 → 1 rows, contents changed"]
    Client.objects.filter(pk=client.pk).delete()
    assert snap().changes(changed) == ["memories.Client: 1 → 0 rows, contents changed"]


def test_a_tenants_snapshot_leaves_the_other_tenants_rows_out(tenant, other_tenant):
    before = take(tenant=tenant)
    factories.ClientFactory.create(tenant=other_tenant)
    assert take(tenant=tenant).changes(before) == []
    assert take().changes(take()) == []


def test_unchanged_fails_on_a_change(tenant):
    with pytest.raises(AssertionError, match=r"memories\.Client: 0 → 1 rows"), unchanged():
        factories.ClientFactory.create(tenant=tenant)
