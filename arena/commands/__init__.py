"""The ``arena`` command's commands, one module each (or one for a close family).

:mod:`arena.cli` is the entry point: it builds the parser (:mod:`arena.commands.parser`)
and dispatches to the command asked for. Each command module adds its own flags to the
parser (``add_..._command``) and runs the command (``run_..._command``), returning the
exit status; a user's mistake is raised as an ``ArenaError``, which ``arena.cli.main``
says in one line. The modules here import little at the top (the parser is built for
every command) and never import :mod:`arena.cli`; ``gifts`` and ``tournaments`` are
reached only from inside the function that needs them, as the arena depends on neither.
"""
