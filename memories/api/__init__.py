"""The agent API (v1): the base view, authentication, throttling, input fields and
serializers, response shapes, the views by resource, schema docs, tool schemas, and the
exception handler that turns domain errors into clear 4xx answers.
"""
