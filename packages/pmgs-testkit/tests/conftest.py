"""This suite's fixtures: the workspace's shared test kit (ADR 0024), loaded explicitly."""

pytest_plugins = ["pmgs_testkit.pytest_plugin"]
