"""Language-model seats (issue 9): prompts, reply extraction, provider presets."""
