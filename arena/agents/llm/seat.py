"""What every model seat shares, whatever SDK it speaks: options, key, conversation,
provider retries, the concurrency limit, reports and the budget.

The table owns the deadline, the rejections, the retries and the fallback; a seat asks
its model once per call and returns the reply, or raises
:class:`~arena.errors.AgentReplyError` saying why there is none. On a retry of the same
request it continues the conversation with the model's own answer and the table's
reason. A subclass (:mod:`~arena.agents.llm.openai_seat`,
:mod:`~arena.agents.llm.anthropic_seat`) supplies only the provider call: building its
client, sending the conversation, and reading the answer into a :class:`Completion`.

No call outlives the decision's deadline: provider retries wait only while it leaves
time, and each request gets what is left as its timeout. A provider that failed to the
deadline raises :class:`~arena.errors.AgentDownError` (the table does not ask again);
the ``bench_after_failed_decisions``-th such decision in a row raises
:class:`~arena.errors.AgentUnavailableError` instead (the stand-in plays to the end of
the match).

Each call leaves a :class:`~arena.agents.reports.CallReport` for ``take_report``, also
when it failed or the table's deadline cancelled it (then its usage is estimated from
the prompt). The key is read from the environment once, at construction, and registered
as a secret (:mod:`arena.secrets`): the model's text, reasoning, refusal and turn are
masked as they arrive (a key written with JSON escapes too), before anything quotes
them, and a provider's errors also lose anything shaped like a key.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeGuard

from arena.agents.base import AgentBase
from arena.agents.llm import clients
from arena.agents.llm.answers import quoted
from arena.agents.llm.budget import Spending
from arena.agents.llm.faults import (
    GaveUp,
    ProviderFault,
    describe,
    describe_gave_up,
    with_retries,
)
from arena.agents.llm.game_prompts import AskRequest, ModelPrompts, model_prompts
from arena.agents.llm.options import (
    Budget,
    Prices,
    check_choice,
    check_count,
    check_number,
    check_text,
    check_url,
    parse_budget,
    parse_prices,
    read_key,
    seat_preset,
    seat_structured,
)
from arena.agents.llm.providers import ApiKind, Structured
from arena.agents.llm.texts import estimate_tokens
from arena.agents.reports import CallReport, Usage
from arena.errors import (
    AgentDownError,
    AgentReplyError,
    AgentUnavailableError,
    ConfigError,
    error_text,
)
from arena.games.base import Game, GameRules
from arena.games.registry import game_of_rules
from arena.logs import get_logger
from arena.masking import mask_incoming, mask_keys, masked
from protocol import MAX_JSON_INT, Message, ReplyRejected

__all__ = [
    "DEFAULT_BENCH_AFTER",
    "Completion",
    "Conversation",
    "ModelSeat",
    "NotAnAnswer",
    "body_seen",
    "is_count",
    "read_usage",
    "refusal_text",
    "think_text",
]

log = get_logger(__name__)

_MIN_LEFT_S: Final = 0.1
_MIN_LEFT_SHARE: Final = 0.05
_MIN_LEFT_CAP_S: Final = 1.0
"""A call is sent only with at least 5 % of the deadline left (0.1 s at least, 1 s at
most): after a long wait for a concurrency slot its answer could not arrive in time,
yet the provider would still bill it and run it beside the calls the limit lets in."""
_RESERVE_SHARE: Final = 0.05
_RESERVE_MIN_S: Final = 0.1
_RESERVE_CAP_S: Final = 0.5
"""The end of the decision (5 %, 0.1 s at least, 0.5 s at most) no provider call runs
into: the seat's time to say why there is no answer before the table's deadline cancels
it (a busy event loop lags), which would tell the table only of a late agent, to be
asked again for another whole deadline."""
DEFAULT_BENCH_AFTER: Final = 3
"""Decisions in a row failed at the provider after which the seat is benched for the
rest of the match (``options.bench_after_failed_decisions``)."""
_THINK: Final = re.compile(r"<(think|thinking)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)


class NotAnAnswer(Exception):
    """An HTTP 200 whose body is not the API's response (a web page, another JSON): a
    base URL that reaches some other server. The message says what came instead."""


def body_seen(body: object) -> str:
    """What a body that is not an API response holds, in a few words."""
    if isinstance(body, str):
        return f"a text body starting {quoted(body)}"
    if isinstance(body, list):
        return "a JSON array"
    keys = sorted(
        {*getattr(body, "model_fields_set", ()), *(getattr(body, "model_extra", None) or ())}
    )
    if not keys:
        return "an empty JSON object"
    return f"a JSON object with the keys {', '.join(keys[:8])}"


@dataclass(slots=True)
class Completion:
    """One answer of the provider, as the seat needs it."""

    text: str
    """The reply to read: the model's text, or a forced tool's input as JSON."""
    cut_off: bool
    """The provider stopped at the token limit."""
    usage: Usage | None
    """The provider's usage fields; None when it sent none (the seat estimates them)."""
    reasoning: str | None = None
    turn: list[dict[str, Any]] = field(default_factory=list)
    """The assistant's turn as the provider wants it back, to continue after a rejection."""
    tool_call_id: str | None = None
    """The forced tool call's id: a rejection answers it as the tool's result."""
    refusal: str | None = None
    """Why the model gave no answer, when the provider says it declined (a refusal, a
    content filter): a failed reading names it."""
    usage_missing: tuple[str, ...] = ()
    """Counts a ``usage`` block left out (``input_tokens``, ``output_tokens``): estimated."""


class Conversation:
    """One request's exchange with the model, kept for its retries."""

    __slots__ = ("answer", "messages", "rejection", "request_id", "system")

    def __init__(self, request_id: str | None, system: str, messages: list[dict[str, Any]]):
        self.request_id = request_id
        self.system = system
        self.messages = messages
        self.answer: Completion | None = None
        self.rejection: ReplyRejected | None = None


_KEY_OPTIONS: Final = frozenset({"api_key", "key", "token", "apikey"})
"""Options that would hold the key itself: refused with where a key goes instead."""


class ModelSeat(AgentBase):
    """A seat played by a language model; see the module docstring. Subclasses set the
    class attributes and implement :meth:`_make_client`, :meth:`_complete`,
    :meth:`_fault` and :meth:`_rejection_turn`.

    It answers every request with :meth:`ask`, whatever the game; what it says to the
    model and how it reads the answer are the game's (``Game.model_prompts``), chosen by
    the rules it is given. It plays every game that has them (:meth:`plays_game`)."""

    games: ClassVar[tuple[str, ...] | None] = None
    """Any game's requests reach :meth:`ask`; :meth:`plays_game` says which games."""

    api: ClassVar[ApiKind]
    type_name: ClassVar[str]
    response_name: ClassVar[str]
    """The API's name for its answer, for a body that is not one ("Chat Completions")."""
    seat_structured: ClassVar[tuple[Structured, ...]]
    other_types_options: ClassVar[dict[str, str]] = {}
    """Options of the other model seat type, each with what to say instead of "unknown"."""
    """The structured modes this seat type implements."""

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        rules: GameRules | None = None,
        model: object = None,
        provider: object = None,
        base_url: object = None,
        api_key_env: object = None,
        temperature: object = None,
        max_tokens: object = None,
        structured: object = None,
        language: object = None,
        persona: object = None,
        legal_moves: object = None,
        prices: object = None,
        budget: object = None,
        concurrency: object = None,
        bench_after_failed_decisions: object = None,
        **options: Any,
    ) -> None:
        for option in options:
            if option in self.other_types_options:
                raise ConfigError(self.other_types_options[option])
            if option in _KEY_OPTIONS:  # "did you mean 'api_key_env'?" invites a pasted key
                variable = f"{self.type_name.upper()}_API_KEY"
                raise ConfigError(
                    f"options.{option}: keys come from the environment only: export the key "
                    f"(export {variable}=...) and set options.api_key_env to the variable's "
                    f"name ({variable}), not to the key"
                )
        super().__init__(name, seed=seed, rules=rules, **options)
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("options.model is required: the model's name, e.g. 'gpt-4o-mini'")
        self.model = model
        self.provider = seat_preset(
            self.api if provider is None else provider, self.api, self.type_name
        )
        self.base_url = self.provider.base_url if base_url is None else check_url(base_url)
        self.decision_timeout_s: float = self.provider.timeout_s
        """The preset's deadline; the table uses it unless the seat sets ``timeout_s``."""
        self.temperature = check_number(temperature, "temperature", 0.0, 2.0)
        self.max_tokens = check_count(max_tokens, "max_tokens")
        self.structured = seat_structured(
            structured, self.provider, self.seat_structured, self.type_name
        )
        self.game: Game = game_of_rules(self.rules)
        """The game the seat plays: the one whose rules it was given."""
        self.prompts: ModelPrompts = model_prompts(self.game)
        """What the seat says and reads: the prompts of the game it plays."""
        self.language: str = _choose(language, "language", self.prompts.languages)
        """The prompts' language (the game's first when not given)."""
        self.persona = check_text(persona, "persona")
        self.legal_moves: str = _choose(legal_moves, "legal_moves", self.prompts.legal_moves)
        """How much of the legal moves a prompt lists (the game's first choice when not
        given)."""
        self.prices: Prices | None = parse_prices(prices)
        self.budget: Budget | None = parse_budget(budget, self.prices, model)
        self.concurrency = check_count(concurrency, "concurrency") or self.provider.concurrency
        self.bench_after_failed_decisions: int = (
            check_count(  # past a thousand it would mean "never": a typo
                bench_after_failed_decisions, "bench_after_failed_decisions", most=1000
            )
            or DEFAULT_BENCH_AFTER
        )
        """Decisions in a row the provider fails (to their deadlines) before the seat
        says it cannot play on this match and its stand-in takes over."""
        self._failed_in_row = 0
        self.key_variable, self._api_key = read_key(api_key_env, self.provider)
        self._conversation: Conversation | None = None
        self._report: CallReport | None = None
        self._lease: clients.Lease | None = None
        self._rng = random.Random(seed)
        self.spending = Spending(
            self.budget, model, currency=self.prices.currency if self.prices else None
        )
        """This match's tokens and cost, against the budget."""
        self.last_reasoning: str | None = None
        """Reasoning text of the last answer, when there was any (also in its report)."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self.name!r}, provider={self.provider.name!r}, "
            f"model={self.model!r})"
        )

    # --- what subclasses supply ---------------------------------------------------------

    def _make_client(self) -> Any:
        """A new SDK client for this base URL and key, with ``max_retries=0``."""
        raise NotImplementedError

    async def _complete(
        self,
        client: Any,
        model: str,
        conversation: Conversation,
        request: AskRequest,
        timeout_s: float,
    ) -> Completion:
        """Send the conversation, with ``timeout_s`` as the request's timeout (the time
        left of the decision); the answer. SDK errors propagate as they are."""
        raise NotImplementedError

    def _fault(self, exc: BaseException) -> ProviderFault | None:
        """The SDK's exception as a fault; None when it is not the SDK's."""
        raise NotImplementedError

    def _rejection_turn(self, answer: Completion, text: str) -> dict[str, Any]:
        """The user turn that tells the model why its answer was refused."""
        return {"role": "user", "content": text}

    # --- the agent ----------------------------------------------------------------------

    async def open(self) -> None:
        """Lease (or share) the client in this event loop, before the first decision."""
        self._client_lease()

    async def close(self) -> None:
        """Give the client back; the last seat holding it closes it."""
        lease, self._lease = self._lease, None
        if lease is not None:
            await lease.release()

    def take_report(self) -> CallReport | None:
        """The report of the latest call, cleared."""
        report, self._report = self._report, None
        return report

    async def notify(self, message: Message) -> None:
        """Remember a rejection of the request being answered, for its retry."""
        conversation = self._conversation
        if (
            isinstance(message, ReplyRejected)
            and conversation is not None
            and message.request_id == conversation.request_id
        ):
            conversation.rejection = message

    @classmethod
    def plays_game(cls, game: Game) -> bool:
        """Whether a model seat can play ``game``: whether the game gives model seats
        their prompts and reading (``Game.model_prompts``)."""
        return game.model_prompts is not None

    async def ask(self, request: Message) -> Any:
        """Answer any request of the game the seat plays: the model's answer, read as
        the game reads one into the reply the request expects."""
        asked: AskRequest = request  # type: ignore[assignment]  # the game's to read
        return self._reply(await self._ask(asked), asked)

    def _reply(self, answer: Completion, request: AskRequest) -> Any:
        """The reply ``answer`` holds, read as the game reads a model's text; an
        AgentReplyError (naming the model's refusal, if it said one) when none."""
        try:
            return self.prompts.extract_reply(answer.text, request, cut_off=answer.cut_off).reply
        except AgentReplyError as exc:
            raise _with_refusal(exc, answer) from None

    def _client_lease(self) -> clients.Lease:
        lease = self._lease
        if lease is None or not lease.valid_here():
            lease = self._lease = clients.lease(
                self.api, self.base_url, self._api_key, self._make_client, self.concurrency
            )
        return lease

    # --- one call -----------------------------------------------------------------------

    async def _ask(self, request: AskRequest) -> Completion:
        """The provider's answer to this request (a continued conversation on a retry),
        with its report filed whatever happens."""
        model, notice = self._model_for(request)
        conversation = self._conversation_for(request)
        report = CallReport(
            provider=self.provider.name,
            model=model,
            usage=Usage(),
            latency_ms=0.0,
            prompt=[{"role": "system", "content": conversation.system}, *conversation.messages],
            notice=notice,
        )
        self._report = report
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + request.time_limit_ms / 1000
        try:
            answer = await self._call(model, conversation, request, deadline, report)
        except asyncio.CancelledError:  # the table's deadline: no usage came back
            report.usage = self._usage(_estimated(report.prompt, ""), model)
            raise
        except AgentReplyError as exc:
            report.error = exc.detail
            raise
        except (NotAnAnswer, json.JSONDecodeError) as exc:  # a 200 from some other server
            seen = str(exc) if isinstance(exc, NotAnAnswer) else f"a body that is not JSON ({exc})"
            detail = mask_keys(
                f"the answer from {self.provider.name} at {self.base_url} is not a "
                f"{self.response_name} response: {seen} (check base_url)"
            )
            report.error = detail
            raise AgentReplyError("agent_error", detail) from None
        except Exception as exc:  # e.g. a reply the SDK cannot read: said, not raised raw
            log.debug("model_call_raised", agent=self.name, exc_info=exc)
            detail = mask_keys(f"{self.provider.name} model {model!r}: {error_text(exc)}")
            report.error = detail
            raise AgentReplyError("agent_error", detail) from None
        finally:
            report.latency_ms = (loop.time() - started) * 1000
            self.spending.spend(report.usage)
        _mask_answer(answer)
        report.raw_text = answer.text
        report.reasoning = answer.reasoning
        self.last_reasoning = answer.reasoning
        conversation.answer = answer
        conversation.rejection = None
        return answer

    def _model_for(self, request: AskRequest) -> tuple[str, dict[str, Any] | None]:
        """The model to call and the budget's notice, if any. Raises
        AgentUnavailableError (its report filed) when the budget hands over the seat."""
        verdict = self.spending.check(request.match_id)
        if verdict.notice is not None:
            notice = verdict.notice
            log.info("budget_spent", agent=self.name, model=self.model, to=notice["switched_to"])
        if verdict.model is not None:
            return verdict.model, verdict.notice
        detail = f"seat {self.name!r}: {verdict.refusal}"
        self._report = CallReport(
            provider=self.provider.name,
            model=self.model,
            usage=Usage(),
            latency_ms=0.0,
            error=detail,
            notice=verdict.notice,
        )
        raise AgentUnavailableError(detail)

    async def _call(
        self,
        model: str,
        conversation: Conversation,
        request: AskRequest,
        deadline: float,
        report: CallReport,
    ) -> Completion:
        lease = self._client_lease()
        clock = asyncio.get_running_loop().time
        limit_s = request.time_limit_ms / 1000
        too_little = min(_MIN_LEFT_CAP_S, max(_MIN_LEFT_S, _MIN_LEFT_SHARE * limit_s))
        answer_by = deadline - min(_RESERVE_CAP_S, max(_RESERVE_MIN_S, _RESERVE_SHARE * limit_s))

        async def attempt() -> Completion:
            asked = clock()
            async with lease.slots:
                left = answer_by - clock()
                if left < too_little:  # the answer could not arrive in time: not sent
                    raise AgentReplyError(
                        "agent_error", self._no_time(left, clock() - asked, lease)
                    )
                # the SDK's timeout bounds each of its steps; this, the whole call
                bound = asyncio.timeout_at(answer_by)
                try:
                    async with bound:
                        return await self._complete(
                            lease.client, model, conversation, request, left
                        )
                except TimeoutError:
                    if not bound.expired():
                        raise
                    raise ProviderFault(None, _no_answer(left), timed_out=True) from None
                except Exception as exc:
                    fault = self._fault(exc)
                    if fault is None:
                        raise
                    if fault.timed_out:  # the SDK's own words: "Request timed out."
                        fault.message = _no_answer(left)
                    fault.message = mask_keys(fault.message)
                    raise fault from None  # the SDK's exception holds the request (the key)

        def retrying(fault: ProviderFault, wait_s: float) -> None:
            report.provider_retries += 1
            log.info(
                "model_call_retried",
                agent=self.name,
                provider=self.provider.name,
                model=model,
                status=fault.status,
                wait_s=round(wait_s, 3),
            )

        try:
            answer = await with_retries(
                attempt, deadline=answer_by, on_retry=retrying, rng=self._rng, keep_s=too_little
            )
        except ProviderFault as fault:
            self._failed_in_row = 0  # it answered: the provider is up
            detail = describe(fault, api=self.provider.api, **self._where(model))
            log.debug(
                "model_call_failed", agent=self.name, status=fault.status, **self._where(model)
            )
            if fault.permanent:
                raise AgentUnavailableError(f"seat {self.name!r}: {detail}") from None
            raise AgentReplyError("agent_error", detail) from None
        except GaveUp as gave_up:
            if gave_up.fault.timed_out:  # sent, so perhaps run and billed: no usage came
                report.usage = self._usage(_estimated(report.prompt, ""), model)
            detail = describe_gave_up(gave_up, api=self.provider.api, **self._where(model))
            raise self._provider_down(detail) from None
        self._failed_in_row = 0
        usage = answer.usage
        if usage is None or answer.usage_missing:
            guess = _estimated(report.prompt, answer.text)
            if usage is None:
                usage = guess
            else:  # a partial usage block: what it lacks is estimated, and marked so
                for name in answer.usage_missing:
                    setattr(usage, name, getattr(guess, name))
                usage.estimated = True
        report.usage = answer.usage = self._usage(usage, model)
        return answer

    def _provider_down(self, detail: str) -> AgentDownError:
        """A decision the provider failed to its deadline: not to be asked again, and the
        ``bench_after_failed_decisions``-th in a row benches the seat for the match."""
        self._failed_in_row += 1
        failed = self._failed_in_row
        if failed < self.bench_after_failed_decisions:
            return AgentDownError(detail)
        self._failed_in_row = 0  # the next match gives the seat back, counting afresh
        decisions = "decision" if failed == 1 else "decisions"
        return AgentUnavailableError(
            f"seat {self.name!r}: {detail}; {failed} {decisions} in a row failed at the provider"
        )

    def _no_time(self, left: float, waited: float, lease: clients.Lease) -> str:
        """Why a call was not sent: the wait for a slot (or the retries) used the time."""
        why = f"{max(left, 0.0):.2f} s of the decision left, too little to send the call"
        if waited < 0.01:
            return why
        return (
            f"waited {waited:.2f} s for a free slot of provider {self.provider.name} "
            f"(concurrency {lease.concurrency}): {why}"
        )

    def _usage(self, usage: Usage, model: str) -> Usage:
        """The usage with its cost, when the seat has prices: the budget's
        ``then_prices`` for the cheaper model it switched to, if given."""
        prices = self.prices
        if model != self.model and self.budget is not None and self.budget.then_prices:
            prices = self.budget.then_prices
        if prices is not None:
            usage.cost = prices.cost(usage)
        return usage

    def _where(self, model: str) -> dict[str, Any]:
        return {
            "provider": self.provider.name,
            "model": model,
            "base_url": self.base_url,
            "key_variable": self.key_variable,
        }

    # --- the conversation ---------------------------------------------------------------

    def _conversation_for(self, request: AskRequest) -> Conversation:
        """A new conversation for a new request; on a retry, the old one with the
        model's answer and the table's reason appended."""
        old = self._conversation
        if (
            old is not None
            and request.request_id is not None
            and old.request_id == request.request_id
            and old.rejection is not None
            and old.answer is not None
        ):
            text = self.prompts.retry_text(old.rejection, language=self.language)
            old.messages = [
                *old.messages,
                *old.answer.turn,
                self._rejection_turn(old.answer, text),
            ]
            old.answer = None
            return old
        prompt = self.prompts.build_prompt(
            request,
            language=self.language,
            persona=self.persona,
            legal_moves=self.legal_moves,
            rules=self.rules,
        )
        conversation = Conversation(
            request.request_id, prompt.system, [{"role": "user", "content": prompt.user}]
        )
        self._conversation = conversation
        return conversation


def _choose(value: object, option: str, choices: tuple[str, ...]) -> str:
    """An option naming one of the game's ``choices``, the first when not given."""
    return check_choice(choices[0] if value is None else value, option, choices)


def _no_answer(waited_s: float) -> str:
    """A call that had the decision's time and got no answer in it."""
    return f"no answer within {waited_s:.3g} s"


def _estimated(prompt: list[dict[str, Any]], text: str) -> Usage:
    """Usage worked out from the texts, for a call with no usage fields."""
    sent = sum(estimate_tokens(str(m.get("content") or "")) for m in prompt)
    return Usage(input_tokens=sent, output_tokens=estimate_tokens(text), estimated=True)


def _mask_answer(answer: Completion) -> None:
    """The model's own words with every secret masked, before the reading quotes them
    (a rejection's detail) or the replay keeps them: a model may repeat a key it saw,
    JSON-escaped too (``"\\u0073k-..."``). Its turn as well, which a retry sends back
    and the decision's prompt records."""
    answer.text = mask_incoming(answer.text)
    if answer.reasoning is not None:
        answer.reasoning = mask_incoming(answer.reasoning)
    if answer.refusal is not None:
        answer.refusal = mask_incoming(answer.refusal)
    answer.turn = masked(answer.turn, incoming=True)


def _with_refusal(exc: AgentReplyError, answer: Completion) -> AgentReplyError:
    """The reading's error, saying first that the model declined, when it did."""
    if answer.refusal is None:
        return exc
    return AgentReplyError(exc.category, f"{answer.refusal}; {exc.detail}")


def refusal_text(reason: str, text: object = None) -> str:
    """``the model refused (stop_reason refusal): 'I'm sorry…'``: what the provider
    said, with the model's own words (trimmed) when there are any."""
    said = f": {quoted(text)}" if isinstance(text, str) and text.strip() else ""
    return f"the model refused ({reason}){said}"


def read_usage(
    input_tokens: object, output_tokens: object, reasoning_tokens: object = 0
) -> tuple[Usage, tuple[str, ...]]:
    """A provider's usage counts, and the names of those it left out or sent as
    something other than a count, 0 to MAX_JSON_INT (the seat estimates those: a count
    past what JSON readers hold would reach every event and the board)."""
    counts: dict[str, int] = {}
    missing: list[str] = []
    for name, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens)):
        if is_count(value):
            counts[name] = value
        else:
            missing.append(name)
    usage = Usage(
        input_tokens=counts.get("input_tokens", 0),
        output_tokens=counts.get("output_tokens", 0),
        reasoning_tokens=reasoning_tokens if is_count(reasoning_tokens) else 0,
    )
    return usage, tuple(missing)


def is_count(value: object) -> TypeGuard[int]:
    """A token count as a provider may send one: a whole number, 0 to MAX_JSON_INT."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_JSON_INT


def think_text(text: str) -> str | None:
    """The ``<think>`` blocks of a text, for a provider that returns reasoning inline."""
    found = [m.group(2).strip() for m in _THINK.finditer(text)]
    return "\n\n".join(found) or None
