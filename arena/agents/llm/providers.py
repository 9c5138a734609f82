"""Provider presets: where a language-model seat's requests go and what the server accepts.

A seat's ``provider = "deepseek"`` option fills the base URL, the environment variable
that holds the key, a decision timeout and the structured-output mode from one preset
here, so a config needs only the model name. Every value is data, written down from the
provider's public documentation (cited next to each preset); where the documentation
varies by model or region, or we are unsure, the comment says so. A seat's own options
(``base_url``, ``api_key_env``, ``structured`` ...) always win over its preset.

Keys: a preset names the *environment variable* (``api_key_env``), never a key. Local
servers (Ollama, vLLM) need none: their preset has ``api_key_env = None`` and a
``placeholder_key`` that the adapter sends instead, because the OpenAI SDK refuses to
build a client without some key. A vLLM started with ``--api-key`` wants a real one:
set the seat's ``api_key_env`` option then.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal, TypeAlias
from urllib.parse import urlsplit

from arena.errors import ConfigError

__all__ = [
    "API_KINDS",
    "PRESETS",
    "STRUCTURED_MODES",
    "ApiKind",
    "Preset",
    "Structured",
    "preset",
]

ApiKind: TypeAlias = Literal["openai", "anthropic"]
"""Which SDK and wire format: OpenAI Chat Completions, or Anthropic Messages."""

Structured: TypeAlias = Literal["json_schema", "json_object", "tools", "none"]
"""How the reply's shape is enforced: OpenAI ``response_format`` with a JSON schema, the
looser ``{"type": "json_object"}``, a forced tool call (Anthropic; OpenAI-style tools
elsewhere), or nothing (plain text, parsed leniently)."""

API_KINDS: tuple[ApiKind, ...] = ("openai", "anthropic")
STRUCTURED_MODES: tuple[Structured, ...] = ("json_schema", "json_object", "tools", "none")


@dataclass(frozen=True, slots=True)
class Preset:
    """What the arena knows about one provider, so a seat needs only its model name."""

    name: str
    api: ApiKind
    base_url: str
    """As the SDK wants it: OpenAI-style ones end in the version (``.../v1``), the
    Anthropic SDK adds ``/v1/messages`` itself."""
    api_key_env: str | None
    """The environment variable holding the key; None for a server that needs none."""
    placeholder_key: str | None
    """Sent when ``api_key_env`` is None (the SDK insists on some key); never a secret."""
    timeout_s: float
    """A sensible decision deadline: room for a slow (reasoning) reply, not for a hang."""
    structured: Structured
    """The default structured-output mode: the safest one the provider documents."""
    structured_modes: tuple[Structured, ...]
    """Every mode a seat may choose with its ``structured`` option for this provider."""
    reasoning_effort: bool
    """The server accepts OpenAI's ``reasoning_effort`` parameter (some models only)."""
    concurrency: int
    """Calls at once per base URL and key (a seat's ``concurrency`` option overrides):
    high for cloud APIs, whose rate limits are per minute; low for a local server,
    which answers one request at a time per model anyway."""
    reasoning_text: str | None
    """Where reasoning text comes back: a message field (``reasoning_content``,
    ``reasoning``), ``thinking`` (Anthropic content blocks) or None (not returned)."""
    docs: str
    """The public page the values were taken from."""
    note: str
    max_tokens_field: str = "max_tokens"
    """The request field a seat's ``max_tokens`` option goes in: OpenAI's own API wants
    ``max_completion_tokens`` (its reasoning models refuse ``max_tokens`` with a 400);
    the compatible servers document ``max_tokens``."""
    # Invariants (default among the modes; a key variable or a placeholder, not both) are
    # checked by tests/test_fake_providers.py, as this table is our own data.

    @property
    def is_local(self) -> bool:
        """A server on this machine (plain http is fine there, and no key is needed)."""
        return urlsplit(self.base_url).hostname in ("localhost", "127.0.0.1", "::1")


_PRESETS: tuple[Preset, ...] = (
    # https://platform.openai.com/docs/api-reference/chat and the Structured Outputs guide
    # (https://platform.openai.com/docs/guides/structured-outputs): json_schema with
    # "strict" on gpt-4o-2024-08-06 and later. reasoning_effort: reasoning models (o-series,
    # gpt-5). Chat Completions returns no reasoning text, only
    # usage.completion_tokens_details.reasoning_tokens.
    Preset(
        name="openai",
        api="openai",
        base_url="https://api.openai.com/v1",
        api_key_env="OPENAI_API_KEY",
        placeholder_key=None,
        timeout_s=60.0,
        structured="json_schema",
        structured_modes=("json_schema", "json_object", "tools", "none"),
        reasoning_effort=True,
        concurrency=64,
        reasoning_text=None,
        docs="https://platform.openai.com/docs/api-reference/chat",
        note="Reasoning models take tens of seconds at high effort: hence 60 s.",
        max_tokens_field="max_completion_tokens",
    ),
    # https://api-docs.deepseek.com/ ("base_url https://api.deepseek.com", /v1 also
    # accepted), JSON Output guide (response_format json_object; the prompt must contain
    # the word "json"); json_schema is not documented. deepseek-reasoner returns
    # message.reasoning_content and ignores sampling parameters (its docs say they "will
    # not take effect"); reasoning_effort is not documented, so we do not send it.
    Preset(
        name="deepseek",
        api="openai",
        base_url="https://api.deepseek.com/v1",
        api_key_env="DEEPSEEK_API_KEY",
        placeholder_key=None,
        timeout_s=90.0,
        structured="json_object",
        structured_modes=("json_object", "tools", "none"),
        reasoning_effort=False,
        concurrency=64,
        reasoning_text="reasoning_content",
        docs="https://api-docs.deepseek.com/guides/json_mode",
        note="deepseek-reasoner thinks before answering and is slow under load.",
    ),
    # https://help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope
    # (base_url .../compatible-mode/v1; Beijing region; international accounts use
    # https://dashscope-intl.aliyuncs.com/compatible-mode/v1). json_object is documented
    # for the qwen-plus/max/turbo families; json_schema only for some newer models (unsure
    # which), so json_object is the default. Thinking models (qwen3 with
    # enable_thinking, QwQ) return reasoning_content. Key variable: DASHSCOPE_API_KEY,
    # as in Alibaba's own examples.
    Preset(
        name="qwen",
        api="openai",
        base_url="https://dashscope.aliyuncs.com/compatible-mode/v1",
        api_key_env="DASHSCOPE_API_KEY",
        placeholder_key=None,
        timeout_s=60.0,
        structured="json_object",
        structured_modes=("json_schema", "json_object", "tools", "none"),
        reasoning_effort=False,
        concurrency=64,
        reasoning_text="reasoning_content",
        docs="https://help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope",
        note="International accounts: base_url https://dashscope-intl.aliyuncs.com/compatible-mode/v1.",
    ),
    # https://platform.moonshot.cn/docs (OpenAI-compatible, base_url
    # https://api.moonshot.cn/v1; international https://api.moonshot.ai/v1), JSON Mode
    # (response_format json_object). Kimi thinking models return reasoning_content.
    # json_schema: not documented as far as we know.
    Preset(
        name="moonshot",
        api="openai",
        base_url="https://api.moonshot.cn/v1",
        api_key_env="MOONSHOT_API_KEY",
        placeholder_key=None,
        timeout_s=60.0,
        structured="json_object",
        structured_modes=("json_object", "tools", "none"),
        reasoning_effort=False,
        concurrency=64,
        reasoning_text="reasoning_content",
        docs="https://platform.moonshot.cn/docs/api/chat",
        note="International accounts: base_url https://api.moonshot.ai/v1.",
    ),
    # https://docs.bigmodel.cn/ (OpenAI-compatible at https://open.bigmodel.cn/api/paas/v4;
    # the z.ai international host is https://api.z.ai/api/paas/v4). response_format
    # json_object is documented for GLM-4 models; tool_choice only "auto" (so a forced
    # tool is not available). GLM-4.5 and later think by default and return
    # reasoning_content. Key variable: ZHIPUAI_API_KEY is what Zhipu's own Python SDK
    # reads; other tools use ZHIPU_API_KEY or ZAI_API_KEY (set api_key_env for those).
    Preset(
        name="zhipu",
        api="openai",
        base_url="https://open.bigmodel.cn/api/paas/v4",
        api_key_env="ZHIPUAI_API_KEY",
        placeholder_key=None,
        timeout_s=60.0,
        structured="json_object",
        structured_modes=("json_object", "none"),
        reasoning_effort=False,
        concurrency=64,
        reasoning_text="reasoning_content",
        docs="https://docs.bigmodel.cn/api-reference",
        note="The version segment is v4, not v1; z.ai accounts use https://api.z.ai/api/paas/v4.",
    ),
    # https://openrouter.ai/docs (base_url https://openrouter.ai/api/v1). Structured
    # output depends on the routed model, and a 400 would bench the seat, so plain text
    # is the default; choose json_schema for models that support it. Reasoning: the
    # ``reasoning`` request object ({"effort": ...}); reasoning text comes back in
    # message.reasoning (https://openrouter.ai/docs/use-cases/reasoning-tokens).
    # Whether top-level reasoning_effort is accepted we are not sure: not sent.
    Preset(
        name="openrouter",
        api="openai",
        base_url="https://openrouter.ai/api/v1",
        api_key_env="OPENROUTER_API_KEY",
        placeholder_key=None,
        timeout_s=60.0,
        structured="none",
        structured_modes=("json_schema", "json_object", "tools", "none"),
        reasoning_effort=False,
        concurrency=64,
        reasoning_text="reasoning",
        docs="https://openrouter.ai/docs/api-reference/overview",
        note="Model names carry the vendor: 'openai/gpt-4o-mini', 'deepseek/deepseek-chat'.",
    ),
    # https://github.com/ollama/ollama/blob/main/docs/openai.md: base_url
    # http://localhost:11434/v1, "api_key='ollama'  # required, but unused". response_format
    # json_object and (since 0.5) json_schema; thinking models return message.reasoning
    # in recent versions (unsure since which). A model on a CPU can be slow: 120 s.
    Preset(
        name="ollama",
        api="openai",
        base_url="http://localhost:11434/v1",
        api_key_env=None,
        placeholder_key="ollama",
        timeout_s=120.0,
        structured="json_object",
        structured_modes=("json_schema", "json_object", "tools", "none"),
        reasoning_effort=False,
        concurrency=4,
        reasoning_text="reasoning",
        docs="https://github.com/ollama/ollama/blob/main/docs/openai.md",
        note="Local: no key; the first request also loads the model into memory.",
    ),
    # https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html: base_url
    # http://localhost:8000/v1, api_key "EMPTY" unless the server runs with --api-key.
    # response_format json_schema via structured outputs (guided decoding). With a
    # --reasoning-parser the server returns reasoning_content (newer versions also
    # ``reasoning``: unsure which field a given version uses).
    Preset(
        name="vllm",
        api="openai",
        base_url="http://localhost:8000/v1",
        api_key_env=None,
        placeholder_key="EMPTY",
        timeout_s=60.0,
        structured="json_schema",
        structured_modes=("json_schema", "json_object", "tools", "none"),
        reasoning_effort=False,
        concurrency=64,
        reasoning_text="reasoning_content",
        docs="https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
        note="Local: no key unless started with --api-key (then set the seat's api_key_env).",
    ),
    # https://docs.anthropic.com/en/api/messages: the SDK's default base URL
    # https://api.anthropic.com (it appends /v1/messages), key in x-api-key from
    # ANTHROPIC_API_KEY. The response schema is a forced tool (tool_choice {"type":
    # "tool", "name": ...}); extended thinking returns "thinking" content blocks (a
    # forced tool and thinking do not combine: the adapter must pick "auto" then).
    Preset(
        name="anthropic",
        api="anthropic",
        base_url="https://api.anthropic.com",
        api_key_env="ANTHROPIC_API_KEY",
        placeholder_key=None,
        timeout_s=60.0,
        structured="tools",
        structured_modes=("tools", "none"),
        reasoning_effort=False,
        concurrency=64,
        reasoning_text="thinking",
        docs="https://docs.anthropic.com/en/api/messages",
        note="Extended thinking via the seat's thinking_budget option; max_tokens is required.",
    ),
)

PRESETS: dict[str, Preset] = {p.name: p for p in _PRESETS}
"""Every preset by name."""


def preset(name: str) -> Preset:
    """The preset called ``name``; a ConfigError listing the names (and the close one)."""
    found = PRESETS.get(name)
    if found is not None:
        return found
    close = difflib.get_close_matches(name, list(PRESETS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    known = ", ".join(PRESETS)
    raise ConfigError(f"unknown provider {name!r}{hint}; known providers: {known}")
