"""The subcommand contract that pmgs-cli and the providing packages share."""

import pmgs_core


def test_entry_point_group_name_is_stable() -> None:
    # Providers publish under this literal name in their pyproject.toml; renaming it silently
    # would drop `pmgs mcp` and `pmgs agent-kit` from the command.
    assert pmgs_core.COMMAND_ENTRY_POINT_GROUP == "pmgs.commands"
