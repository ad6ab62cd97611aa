"""The web companion (`tavli-board web`): the live board, the referee's reasoning, the match, history,
settings and status in any browser, in a process of its own that talks to the service over its
companion socket (docs/companion-protocol.md)."""
