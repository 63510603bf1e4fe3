"""Package data: the one ``pmgs-reference`` skill installed for both Codex and Claude Code."""
