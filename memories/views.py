from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_safe

from memories.models import Membership


@require_safe
@login_required
def home(request):
    memberships = Membership.objects.filter(user=request.user).select_related("tenant")
    return render(request, "memories/home.html", {"memberships": memberships})
