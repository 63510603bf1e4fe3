"""Built-in subcommands of ``pmgs``, one module each."""
