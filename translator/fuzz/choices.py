"""The fuzzer's source of randomness: a seeded stream of small integers that is recorded, so that a
program can be regenerated from its choices alone and shrunk by editing them (shorter or smaller
choice lists give simpler programs: every generator decision maps 0 to its simplest option)."""
from __future__ import annotations

import random


class Choices:
    """``int(n)`` gives 0..n-1: from a seeded RNG, or replayed from ``replay`` (past its end, 0)."""

    def __init__(self, seed: int | None = None, replay: list[int] | None = None):
        self.rng = random.Random(seed)
        self.replay = None if replay is None else list(replay)
        self.made: list[int] = []

    def int(self, n: int) -> int:
        if n <= 1:
            v = 0
        elif self.replay is not None:
            i = len(self.made)
            v = min(self.replay[i], n - 1) if i < len(self.replay) else 0
        else:
            v = self.rng.randrange(n)
        self.made.append(v)
        return v

    def pick(self, options):
        options = list(options)
        return options[self.int(len(options))]

    def chance(self, percent: int) -> bool:
        """True with ``percent``% probability; the choice 0 (the shrunk form) is False."""
        return self.int(100) >= 100 - percent


def encode(choices: list[int]) -> str:
    return ",".join(map(str, choices))


def decode(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]
