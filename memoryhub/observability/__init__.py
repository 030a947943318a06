"""What an operator sees of a running memoryhub: request ids (``requests``), JSON logs
(``logs``) and Prometheus metrics (``metrics``). Nothing here imports the apps: services
record into it, settings and URLs wire it in."""
