from django.urls import path

from curation import views

page_urlpatterns = [
    path("", views.review_queue, name="queue"),
    path("bulk/", views.review_bulk, name="bulk"),
    path("<uuid:item_id>/decide/", views.review_decide_view, name="decide"),
]
