"""The club's hub (`tavli-board club hub`): one process beside the club's MQTT broker that takes every
board's signed view and journal, keeps them in SQLite, and serves the café screen, the club's match
history, the ladder and the tournaments (docs/club.md). Boards never talk to it directly: everything
comes through the broker."""
