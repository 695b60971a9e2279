"""Services never read Settings: services/container.py fills each service's own frozen config
from the settings of the same names. A setting renamed on one side only would leave its field at
the default without a word, so every field of these configs must name a setting of its group."""

from __future__ import annotations

from dataclasses import fields

import pytest

from memlane.config import Settings, SettingsGroup
from memlane.services.container import from_settings
from memlane.services.conversation.wiring import ConversationConfig
from memlane.services.lifecycle.decay import DecayPolicy
from memlane.services.quotas import QuotaPolicy
from memlane.services.ranking.calibration import RelevanceScale
from memlane.services.retention import RetentionPolicy

SETTINGS = Settings()

#: each config, the group it is filled from, the settings' prefix, and the fields that come from
#: elsewhere (given by the container, or a constant no setting changes)
CONFIGS: list[tuple[type, SettingsGroup, str, set[str]]] = [
    (QuotaPolicy, SETTINGS.quotas, "", set()),
    (DecayPolicy, SETTINGS.decay, "", set()),
    (RetentionPolicy, SETTINGS.retention, "", set()),
    (ConversationConfig, SETTINGS.conversation, "", {"job_max_attempts"}),
    (RelevanceScale, SETTINGS.recall, "relevance_", {"background_prior"}),
]


@pytest.mark.parametrize(("kind", "group", "prefix", "elsewhere"), CONFIGS, ids=lambda v: getattr(v, "__name__", ""))
def test_every_field_of_a_service_config_is_read_from_a_setting(
    kind: type, group: SettingsGroup, prefix: str, elsewhere: set[str]
) -> None:
    names = set(type(group).model_fields)
    unread = {f.name for f in fields(kind) if prefix + f.name not in names} - elsewhere
    assert unread == set()


def test_a_changed_setting_reaches_the_service_config() -> None:
    settings = Settings(TENANT_WRITE_RATE_LIMIT_BURST=7, MEMLANE_RATE_LIMIT_STORAGE="memory://")
    policy = from_settings(QuotaPolicy, settings.quotas)
    assert (policy.write_burst, policy.rate_limit_storage) == (7, "memory://")
    conversation = from_settings(ConversationConfig, settings.conversation, job_max_attempts=4)
    assert conversation.job_max_attempts == 4
    assert conversation.max_messages == settings.conversation.max_messages
