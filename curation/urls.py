from django.urls import path

from curation import api, queue_api, views

app_name = "curation"

page_urlpatterns = [
    path("", views.review_queue, name="queue"),
    path("bulk/", views.review_bulk, name="bulk"),
    path("<uuid:item_id>/decide/", views.review_decide_view, name="decide"),
]

api_urlpatterns = [
    path("review/", queue_api.ReviewQueueApi.as_view(), name="review-list"),
    path("review/<uuid:item_id>/", queue_api.ReviewItemApi.as_view(), name="review-item"),
    path("review/<uuid:item_id>/decide/", api.ReviewDecideApi.as_view(), name="review-decide"),
]
