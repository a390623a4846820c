"""Pure image code: frame -> DiceReading; frames -> one RollEvent per throw. No I/O here."""

from vision.reading import DiceReading, Die, Verdict

__all__ = ["DiceReading", "Die", "Verdict"]
