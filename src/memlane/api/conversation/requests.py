"""Request bodies of the conversation surface; validation failures become 400s naming the field.

The message count bound (1..``MAX_MESSAGES``) depends on settings, so the use cases check it
(services/conversation/intake.py, batcher.py); everything static is declared here.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, field_validator, model_validator

from memlane.api.common.requests import HTTP_URL_PATTERN
from memlane.domain.inputs import check_name
from memlane.services.conversation.messages import parse_timestamp
from memlane.services.conversation.task_payloads import TaskMessage
from memlane.services.conversation.webhook_targets import parse_target

MAX_CONTENT_CHARS = 50_000
MAX_AGENT_TEXT_CHARS = 100_000
MAX_ID_CHARS = 200
MAX_CALLBACK_HEADERS = 20
FORBIDDEN_CALLBACK_HEADERS = frozenset(
    {"host", "content-length", "content-type", "transfer-encoding", "connection", "user-agent"}
)
_HEADER_NAME = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

#: some character that is neither white space nor a control character, and no control
#: character at all (domain/inputs.py: names)
IDENT_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
#: no control character (checked first, on the text as sent), then stripped, then 1..MAX_ID_CHARS
Ident = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ID_CHARS),
    BeforeValidator(check_name),
    Field(json_schema_extra={"pattern": IDENT_PATTERN}),
]
OptIdent = Annotated[
    str | None,
    StringConstraints(strip_whitespace=True, max_length=MAX_ID_CHARS),
    BeforeValidator(check_name),
    Field(json_schema_extra={"pattern": r"^[^\x00-\x1f\x7f-\x9f]*$"}),
]


def _check_timestamp(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_timestamp(value)
    except ValueError:
        raise ValueError("must be an ISO-8601 date-time, e.g. 2024-01-01T00:00:00Z") from None
    return value


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=64),
        BeforeValidator(check_name),
        Field(json_schema_extra={"pattern": IDENT_PATTERN}),
    ]
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    timestamp: str | None = Field(
        None,
        description="ISO-8601 date-time; without one a message takes its arrival time, in the order sent",
        json_schema_extra={"format": "date-time"},
    )
    id: OptIdent = Field(None, description="optional message id, cited by the notes made from it")
    message_id: OptIdent = Field(None, description="alias of id")

    _ts = field_validator("timestamp")(_check_timestamp)

    @property
    def given_id(self) -> str | None:
        return self.id or self.message_id or None

    def to_task(self) -> TaskMessage:
        return TaskMessage(id=self.given_id, role=self.role, content=self.content, timestamp=self.timestamp)


class MemoryBase(BaseModel):
    model_config = ConfigDict(extra="ignore")

    app_id: Ident
    user_id: Ident
    session_id: OptIdent = None

    @field_validator("session_id")
    @classmethod
    def _blank_session_is_none(cls, v: str | None) -> str | None:
        return v or None


class AddMemoryRequest(MemoryBase):
    messages: list[MessageIn]


class BatcherRequest(MemoryBase):
    """OmniMemory's memory batcher body; ``messages`` may be empty to read the buffer's state."""

    messages: list[MessageIn] = Field(default_factory=list)


class AgentMemoryRequest(MemoryBase):
    messages: (
        Annotated[
            str,
            StringConstraints(min_length=1, max_length=MAX_AGENT_TEXT_CHARS),
            Field(json_schema_extra={"pattern": r"\S"}),
        ]
        | list[MessageIn]
    )

    @field_validator("messages")
    @classmethod
    def _not_blank(cls, v: str | list[MessageIn]) -> str | list[MessageIn]:
        if isinstance(v, str) and not v.strip():
            raise ValueError("must not be blank")
        return v


class SummaryRequest(AgentMemoryRequest):
    callback_url: str | None = Field(None, max_length=2048, json_schema_extra={"pattern": f"^$|{HTTP_URL_PATTERN}"})
    callback_headers: dict[str, str] | None = None

    @field_validator("callback_url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        return check_callback_url(v) if v else None

    @model_validator(mode="after")
    def _headers(self) -> SummaryRequest:
        headers = self.callback_headers or {}
        if len(headers) > MAX_CALLBACK_HEADERS:
            raise ValueError(f"callback_headers: at most {MAX_CALLBACK_HEADERS} headers")
        for name, value in headers.items():
            if not name or any(c not in _HEADER_NAME for c in name):
                raise ValueError(f"callback_headers: {name!r} is not a valid header name")
            if name.lower() in FORBIDDEN_CALLBACK_HEADERS:
                raise ValueError(f"callback_headers: {name!r} is set by memlane and cannot be overridden")
            if len(value) > 4096 or any(c in value for c in "\r\n\x00"):
                raise ValueError(f"callback_headers: the value of {name!r} is too long or has line breaks")
        return self


def check_callback_url(value: str) -> str:
    """An absolute http(s) URL with a host and no credentials (its address is checked by the
    service, which knows MEMLANE_WEBHOOK_ALLOWED_HOSTS); anything else is refused up front."""
    return str(parse_target(value).url)
