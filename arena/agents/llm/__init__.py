"""Language-model seats (issue 9), a transport for any game: provider presets and
clients, the conversation and its retries, faults, budgets, finding the answer in a
model's text. What a seat says to a model and how it reads the answer are the game's
(``Game.model_prompts``; Dou Dizhu's prompts, facts and templates are
:mod:`arena.games.ddz.prompts`)."""
