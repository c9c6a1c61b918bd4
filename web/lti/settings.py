"""The LTI tool's settings, from the environment (prefix PRACTICE_LTI_)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class LtiSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRACTICE_LTI_", extra="ignore")

    retry_base_s: float = Field(5, gt=0, description="First wait before a passback is tried again (then doubled).")
    retry_cap_s: float = Field(600, gt=0, description="Longest wait between two tries of a passback.")
    poll_s: float = Field(1.0, gt=0, description="How often the passback loop looks for judged LTI submissions.")
    frame_ancestors: str = Field(
        "",
        description="Origins (space-separated) allowed to frame the tool beyond those a launch names (its issuer, "
        "login, return and service URLs): a Canvas school's own domain, for one.",
    )
    public_url: str = Field(
        "",
        description="The tool's public base URL (https://judge.example.edu) when a proxy in front changes it; "
        "default: what the request says.",
    )
