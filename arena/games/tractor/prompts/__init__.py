"""Tractor for language-model seats: the prompts (``prompts``, from the ``templates`` in
``zh`` and ``en``), the facts a request implies (``facts``), the JSON schema of a
decision (``schema``) and the reading of a model's answer as a reply, with its repairs
(``extract``). ``kit.PROMPTS`` gathers them for the seat (``Game.model_prompts``); the
seat itself, a transport, is :mod:`arena.agents.llm`.
"""
