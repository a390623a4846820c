"""Pure image code: frame -> DiceReading; frames -> one RollEvent per throw. No I/O here."""

from vision.reader import read_dice
from vision.reading import DiceReading, Die, Verdict

__all__ = ["DiceReading", "Die", "Verdict", "read_dice"]
