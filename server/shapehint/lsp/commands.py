"""Server commands (workspace/executeCommand): declared in shared/commands.json, implemented here.

Every command the repository's shared/commands.json lists under "server" is registered with
the client, so the server, the extension and the data agree; an implementation plugs in with
`@command("shapehint.x")` as `async def impl(server, args: dict) -> result`. A declared command
without an implementation answers a clear error. With SHAPEHINT_TEST_HOOKS=1 the hidden
`shapehint.debug.*` commands of debug.py are added. Tests: tests/lsp/test_cancel.py.
"""
from __future__ import annotations

from functools import lru_cache

from ..shared_files import read_json

IMPLEMENTATIONS: dict = {}


@lru_cache(maxsize=None)
def declared() -> dict:
    return read_json("commands.json")


def server_commands() -> list:
    return sorted(declared()["server"])


def command(name: str):
    def register(fn):
        IMPLEMENTATIONS[name] = fn
        return fn
    return register


class NotAvailable(Exception):
    pass


async def execute(server, name: str, args: list):
    impl = IMPLEMENTATIONS.get(name)
    if impl is None:
        raise NotAvailable(f"{name} is not available in this version of the server")
    arg = args[0] if len(args) == 1 and isinstance(args[0], dict) else {"args": list(args)}
    return await impl(server, arg)
