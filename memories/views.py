from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from memories.models import Membership


@login_required
def home(request):
    memberships = Membership.objects.filter(user=request.user).select_related("tenant")
    return render(request, "memories/home.html", {"memberships": memberships})
