"""memoryhub settings: every knob comes from the environment (see docs/configuration.md)."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


DATA_DIR = Path(env("MEMORYHUB_DATA_DIR", str(BASE_DIR / ".data"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)


DEBUG = env_bool("MEMORYHUB_DEBUG", False)
# A deployment: a real database and debug off. It must be given its secret key (several
# web processes on several machines share one), and it sits behind HTTPS unless told not.
DEPLOYED = not DEBUG and bool(env("DATABASE_URL"))


def _secret_key() -> str:
    """From the environment. Only a local run (debug on, or the embedded database) may
    fall back to one generated once into its data folder, which git ignores."""
    if key := env("MEMORYHUB_SECRET_KEY"):
        return key
    if DEPLOYED:
        raise ImproperlyConfigured(
            "Set MEMORYHUB_SECRET_KEY: with DATABASE_URL set and debug off, memoryhub does "
            "not invent a key (every web process must share the same one)."
        )
    path = DATA_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("MEMORYHUB_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("MEMORYHUB_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "guardian",
    "django_q",
    "django_htmx",
    "template_partials",
    "memories",
    "curation",
    "profiles",
    "mcp_server",
]

MIDDLEWARE = [
    "memories.middleware.ServerHeaderMiddleware",
    "memoryhub.observability.request_ids.RequestIdMiddleware",
    "memoryhub.observability.traces.TraceMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "memories.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memoryhub.replica.ReplicaReadsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "memories.middleware.PageLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "memories.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "memoryhub.urls"
WSGI_APPLICATION = "memoryhub.wsgi.application"
ASGI_APPLICATION = "memoryhub.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "memories.pages.context_processors.navigation",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

# --- Database: DATABASE_URL, else the embedded PostgreSQL + pgvector in DATA_DIR. ---
if database_url := env("DATABASE_URL"):
    EMBEDDED_DATABASE = False
    DATABASES = {
        "default": dj_database_url.parse(database_url, conn_max_age=60, conn_health_checks=True)
    }
else:
    from memoryhub import embedded_db

    EMBEDDED_DATABASE = True
    if env("MEMORYHUB_EMBEDDED_DB_UNSTARTED"):  # manage.py embedded_db: nothing connects
        DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": ""}}
    else:
        DATABASES = {"default": embedded_db.start(DATA_DIR).django_database()}

# Reads on a streaming replica of the primary (memoryhub/replica.py): read-only requests
# read there once it has replayed the caller's own last write; everything else, and every
# read while it is down or more than MEMORYHUB_REPLICA_MAX_LAG seconds behind, on the
# primary. One that cannot be reached is not asked again for MEMORYHUB_REPLICA_RETRY s.
if replica_url := env("MEMORYHUB_REPLICA_URL"):
    DATABASES["replica"] = dj_database_url.parse(
        replica_url, conn_max_age=60, conn_health_checks=True
    )
    DATABASES["replica"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 3)
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["memoryhub.replica.ReplicaRouter"]
MEMORYHUB_REPLICA_MAX_LAG = float(env("MEMORYHUB_REPLICA_MAX_LAG", "30"))
MEMORYHUB_REPLICA_RETRY = float(env("MEMORYHUB_REPLICA_RETRY", "5"))

# Every session asks pgvector (≥ 0.8) to keep walking the HNSW graph until a filtered
# nearest-neighbour scan (one client's live memories) has its LIMIT rows, instead of
# answering from the first ef_search candidates alone.
# The read path's statements (memories.db.bound_cursor: parameters bound by the server)
# are prepared once a connection has run one five times: a search then skips parsing and
# rewriting them (docs/decisions/0018). Statements whose parameters Django splices into the
# text are never prepared. 0 turns it off, for a pooler in transaction mode that cannot
# keep a session's prepared statements (PgBouncer before 1.21).
# A prepared statement is still planned for its values each time (plan_cache_mode): the
# generic plan PostgreSQL would otherwise settle on after five runs reads the full-text
# branch for every client alike, and a small client's search took 8 times as long with it
# (bench/search.py at 100 k memories: 56 against 6.7 ms).
_prepare_threshold = int(env("MEMORYHUB_DB_PREPARE_THRESHOLD", "5"))
for _database in DATABASES.values():
    _db_options = _database.setdefault("OPTIONS", {})
    _db_options["options"] = " ".join(
        filter(
            None,
            [
                _db_options.get("options", ""),
                "-c hnsw.iterative_scan=relaxed_order",
                "-c plan_cache_mode=force_custom_plan",
            ],
        )
    )
    _db_options.setdefault("prepare_threshold", _prepare_threshold or None)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The database cache lets the web process see the worker's django-q2 cluster stats.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "memoryhub_cache",
    }
}

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
GUARDIAN_RAISE_403 = False
ANONYMOUS_USER_NAME = None  # no anonymous object permissions

# The pages speak English, Italian and Spanish (catalogues in locale/, compiled .mo files
# committed beside them); each person's language is chosen in memories/pages/language.py.
# The API and MCP always answer in English: agents read them.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("it", "Italiano"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env("MEMORYHUB_STATIC_ROOT", str(DATA_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve straight from the app folders unless collectstatic was run for production.
WHITENOISE_USE_FINDERS = env_bool("MEMORYHUB_STATIC_FINDERS", True)

# --- Security: sessions and CSRF on every page, secure headers always, secure cookies
# and HSTS whenever served over HTTPS (by default when deployed, see DEPLOYED). ---
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = False  # no gain (the token is in every page): scripts may read it
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy (memories/middleware.py): this origin's files only, no inline
# script or style, no plugins, no framing, forms post here only.
SECURE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
HTTPS = not DEBUG and env_bool("MEMORYHUB_HTTPS", DEPLOYED)
if HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = 31536000
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

DATA_UPLOAD_MAX_MEMORY_SIZE = int(env("MEMORYHUB_MAX_REQUEST_BYTES", str(5 * 1024 * 1024)))

# --- API ---
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "memories.api.authentication.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["memories.api.parsers.CheckedJSONParser"],
    "EXCEPTION_HANDLER": "memories.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "memories.api.schema.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Per API key (memories/api/throttling.py); "off" lifts a limit.
    "DEFAULT_THROTTLE_RATES": {
        "read": env("MEMORYHUB_THROTTLE_READ", "600/minute"),
        "write": env("MEMORYHUB_THROTTLE_WRITE", "300/minute"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "memoryhub agent API",
    "DESCRIPTION": "Persistent, hierarchical memory for AI agents. Authenticate with "
    "`Authorization: Bearer <api key>` (manage.py create_api_key). Errors are "
    '`{"error": {"code", "message", "fields"}}` with a 4xx status. No text may contain '
    "a NUL character (U+0000), which PostgreSQL cannot store: a request with one is refused.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "memories.api.links.add_links",  # which answer feeds which call
    ],
}

# --- Background jobs (django-q2). ORM broker by default; Redis when REDIS_URL is set. ---
Q_CLUSTER = {
    "name": "memoryhub",
    "workers": int(env("MEMORYHUB_WORKERS", "2")),
    "timeout": int(env("MEMORYHUB_JOB_TIMEOUT", "600")),
    "retry": int(env("MEMORYHUB_JOB_RETRY", "900")),
    "max_attempts": 3,
    "queue_limit": 100,
    "bulk": 10,
    "catch_up": False,
    "save_limit": 1000,
    "sync": env_bool("MEMORYHUB_QUEUE_SYNC", False),
}
if redis_url := env("REDIS_URL"):
    Q_CLUSTER["redis"] = redis_url
else:
    Q_CLUSTER["orm"] = "default"

# --- Embedding providers, in failover order. "local" needs no key and no network. ---
MEMORYHUB_EMBEDDING_PROVIDERS = env_list("MEMORYHUB_EMBEDDING_PROVIDERS", "local")
VOYAGE_API_KEY = env("VOYAGE_API_KEY")
VOYAGE_BASE_URL = env("VOYAGE_BASE_URL")
OPENAI_API_KEY = env("OPENAI_API_KEY")
OPENAI_BASE_URL = env("OPENAI_BASE_URL")

# --- Encrypted tenants (memories/crypto/). No default: an encrypted tenant without a
# master key fails loudly instead of storing plaintext. ---
MEMORYHUB_MASTER_KEY = env("MEMORYHUB_MASTER_KEY", "")  # 32 bytes, base64
MEMORYHUB_MASTER_KEYS_OLD = env("MEMORYHUB_MASTER_KEYS_OLD", "")  # during a rotation
MEMORYHUB_KEY_PROVIDER = env("MEMORYHUB_KEY_PROVIDER", "memories.crypto.providers.LocalKeyProvider")

# Webhook URLs that resolve to loopback, private or link-local addresses are refused unless
# the operator allows them (a tenant's URL must not reach the server's own network, and the
# embedded database's server is often a laptop on a private network too).
MEMORYHUB_WEBHOOK_ALLOW_PRIVATE = env_bool("MEMORYHUB_WEBHOOK_ALLOW_PRIVATE", False)

# Seconds a request's body may take to arrive under ``manage.py serve`` (then 408): a client
# sending slowly holds a slot of the server's. Headers have 5 s (granian's option, see
# memoryhub/serving.py). In front of the server, a buffering proxy does both for every
# connection (docs/operations.md, Serving and operations).
MEMORYHUB_BODY_TIMEOUT = float(env("MEMORYHUB_BODY_TIMEOUT", "20"))

# --- Observability (memoryhub/observability/): JSON logs with the request id, one access
# line per request, Prometheus metrics at /metrics for the holder of the token. ---
MEMORYHUB_METRICS_TOKEN = env("MEMORYHUB_METRICS_TOKEN")
MEMORYHUB_ACCESS_LOG = env_bool("MEMORYHUB_ACCESS_LOG", True)
# Traces go out over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (observability/traces.py);
# query text and memory content in them only on this opt-in, never for an encrypted tenant.
MEMORYHUB_TRACE_CONTENT = env_bool("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", False)
LOG_LEVEL = env("MEMORYHUB_LOG_LEVEL", "INFO")
# JSON lines for a log collector; lines a person reads when standard error is a terminal
# (`make run`), unless told.
LOG_FORMAT = env("MEMORYHUB_LOG_FORMAT", "text" if sys.stderr.isatty() else "json")
LOG_FORMAT = "json" if LOG_FORMAT == "json" else "text"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "memoryhub.observability.request_ids.RequestIdFilter"},
        "expected_denials": {"()": "memoryhub.logfilters.ExpectedDenials"},
        "repeated_errors": {"()": "memoryhub.logfilters.RepeatedErrors"},
    },
    "formatters": {
        "json": {"()": "memoryhub.observability.logs.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": env("MEMORYHUB_LOG_LEVEL", "WARNING")},
    "loggers": {
        "memoryhub": {"level": LOG_LEVEL},
        "memories": {"level": LOG_LEVEL},
        "django.request": {"filters": ["expected_denials"]},
        # django-q2 adds a handler of its own unless its logger has one.
        # Its worker fails on every poll while the database is down: once a minute is enough.
        "django-q": {
            "handlers": ["console"],
            "level": LOG_LEVEL,
            "propagate": False,
            "filters": ["repeated_errors"],
        },
    },
}
