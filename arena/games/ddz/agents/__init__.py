"""Dou Dizhu's agents in Python: the scripted players and what they play with.

``scripted`` holds the ``random``, ``greedy`` and ``heuristic`` agents (the game names
them: :attr:`arena.games.base.Game.scripted_agents`); ``reading`` turns a request into
engine values and engine values into replies, for any Python agent; ``hand_eval`` is
the scripted agents' quick hand evaluation; ``inprocess`` is the short cut a table and
an agent in one process share (the legal moves a request carries, the move a reply was
made from). Import each from its module: this package's ``__init__`` imports nothing,
so a module of it never loads the agents' registry behind the scripted players.
"""
