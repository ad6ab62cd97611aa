"""The club: boards that talk to each other (issue "Boards that talk"). This package holds the pure
parts a club needs whatever carries its messages: the ladder's ratings (`ratings`), tournament pairings
(`tournament`) and dice that neither of two boards can choose (`dice`). Pure, like `rules/`: no I/O,
no clock, no randomness of its own."""
