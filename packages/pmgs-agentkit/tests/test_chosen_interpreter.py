"""Every config writer names the interpreter the user chose, not the one running (issue 22).

The other tests choose ``sys.executable``, so a writer that ignored the choice and named the
current interpreter passed them all. Here the chosen Python is a virtual environment made in
a temporary directory: its ``bin/python`` is a real, executable path that is not
``sys.executable`` (the venv's link is deliberately not resolved). The expected documents are
written out by hand from docs/agents.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from pmgs_agentkit import agent_kit_main
from pmgs_agentkit.config import (
    AgentKitError,
    claude_add_json_argv,
    claude_mcp_json,
    claude_server_json,
    codex_add_argv,
    codex_config_toml,
    resolve_python_executable,
    server_spec,
)


@pytest.fixture(scope="module")
def chosen(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The Python of a fresh venv: exists, is executable, and is not this interpreter."""
    root = tmp_path_factory.mktemp("chosen") / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(root)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    assert python.is_file()
    assert os.path.normpath(python) != os.path.normpath(sys.executable)
    ran = subprocess.run(
        [str(python), "-c", "import sys; print(sys.prefix)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(ran.stdout.strip()).resolve() == root.resolve()
    return str(python)


def test_every_writer_names_the_chosen_python(tmp_path: Path, chosen: str) -> None:
    data = str(tmp_path / "data")
    spec = server_spec(data_dir=data, python_executable=chosen)
    args = ["-m", "pmgs_mcp", "--data-dir", data]
    assert spec.python_executable == chosen
    assert spec.argv == [chosen, *args]
    assert tomllib.loads(codex_config_toml(spec)) == {
        "mcp_servers": {
            "pmgs-reference": {
                "command": chosen,
                "args": args,
                "startup_timeout_sec": 30,
                "tool_timeout_sec": 60,
            }
        }
    }
    server = {"type": "stdio", "command": chosen, "args": args}
    assert claude_server_json(spec) == server
    assert claude_mcp_json(spec) == {"mcpServers": {"pmgs-reference": server}}
    assert codex_add_argv(spec) == ["codex", "mcp", "add", "pmgs-reference", "--", chosen, *args]
    argv = claude_add_json_argv(spec, "/opt/bin/claude")
    assert argv[:6] == ["/opt/bin/claude", "mcp", "add-json", "--scope", "user", "pmgs-reference"]
    assert json.loads(argv[6]) == server
    assert len(argv) == 7


def test_the_written_kit_names_the_chosen_python(tmp_path: Path, chosen: str) -> None:
    out = tmp_path / "kit"
    data = str(tmp_path / "data")
    argv = ["--output", str(out), "--client", "both", "--data-dir", data]
    assert agent_kit_main([*argv, "--python-executable", chosen]) == 0
    codex = tomllib.loads((out / "codex/config.toml").read_text(encoding="utf-8"))
    assert codex["mcp_servers"]["pmgs-reference"]["command"] == chosen
    for name in ("claude/add-json.json", "claude/.mcp.json"):
        text = (out / name).read_text(encoding="utf-8")
        assert chosen in text
        assert sys.executable not in text
    server = json.loads((out / "claude/add-json.json").read_text(encoding="utf-8"))
    assert server["command"] == chosen
    for name in ("commands.md", "commands.sh"):
        text = (out / name).read_text(encoding="utf-8")
        assert chosen in text, name
        assert sys.executable not in text, name


def test_no_choice_means_this_interpreter(tmp_path: Path) -> None:
    spec = server_spec(data_dir=tmp_path)
    assert spec.python_executable == os.path.normpath(sys.executable)


def test_no_data_dir_means_the_managed_one(chosen: str) -> None:
    """The default root is pmgs-core's managed data directory (the one pmgs setup uses)."""
    from pmgs_core import default_data_dir

    spec = server_spec(python_executable=chosen)
    assert spec.data_dir == str(default_data_dir())
    assert os.path.isabs(spec.data_dir)


def _refusal(path: str) -> tuple[str, str]:
    with pytest.raises(AgentKitError) as raised:
        resolve_python_executable(path)
    error = raised.value
    assert error.to_dict() == {"code": error.code, "message": error.message}
    assert str(error) == error.message
    return error.code, error.message


def test_refusals_say_what_and_why(tmp_path: Path) -> None:
    plain = tmp_path / "python-not-executable"
    plain.write_text("", encoding="utf-8")
    plain.chmod(0o644)
    missing = str(tmp_path / "no" / "python")
    windows_cache = str(tmp_path) + "\\.cache\\uv\\python.exe"
    assert _refusal("") == ("PYTHON_NOT_FOUND", "no Python executable is known for this process")
    assert _refusal("python") == (
        "PYTHON_NOT_ABSOLUTE",
        "the Python executable must be an absolute path, not 'python'",
    )
    assert _refusal(missing) == ("PYTHON_NOT_FOUND", f"{missing} is not an executable file")
    assert _refusal(str(plain)) == ("PYTHON_NOT_FOUND", f"{plain} is not an executable file")
    cache = str(tmp_path / ".cache" / "uv" / "python")
    assert _refusal(cache) == (
        "PYTHON_IN_CACHE",
        f"{cache} lives in uv's cache, which can be pruned at any time; use the Python of a "
        "project or tool environment (for example .venv)",
    )
    # A Windows-style path is checked with its separators made '/'.
    assert _refusal(windows_cache)[0] == "PYTHON_IN_CACHE"


def test_claude_payload_is_compact_utf8(tmp_path: Path, chosen: str) -> None:
    data = str(tmp_path / "データ")
    spec = server_spec(data_dir=data, python_executable=chosen)
    payload = claude_add_json_argv(spec)[-1]
    assert payload == (
        '{"type":"stdio","command":' + json.dumps(chosen) + ',"args":["-m","pmgs_mcp",'
        '"--data-dir",' + json.dumps(data, ensure_ascii=False) + "]}"
    )
