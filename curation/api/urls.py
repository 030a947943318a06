from django.urls import path

from curation.api import views

api_urlpatterns = [
    path("review/", views.ReviewQueueApi.as_view(), name="review-list"),
    path("review/<uuid:item_id>/", views.ReviewItemApi.as_view(), name="review-item"),
    path("review/<uuid:item_id>/decide/", views.ReviewDecideApi.as_view(), name="review-decide"),
]
