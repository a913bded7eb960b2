"""The `tandem` process skips its libraries' optional imports it never uses (`tui.cli.lean_imports`),
and still works: a real `tandem ask` turn over HTTP in a process started as the command is."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.helpers.ask_harness import REPO, TIMEOUT, DemoServer, clean_env

from tandem.tui.cli import lean_imports

PROBE = textwrap.dedent('''
    import sys
    from tandem.tui.cli.entry import main

    sys.argv = ["tandem", "ask", "--no-save", "--approve", "none", "--url", sys.argv[1], "/demo weather"]
    status = main()  # argv None: as the console script runs it
    import httpx

    trio = sys.modules.get("trio", "absent")
    print("STATUS", status, "HTTPX_MAIN", sys.modules.get("httpx._main", "absent"),
          "TRIO", "None" if trio is None else "absent" if trio == "absent" else "imported",
          "HTTPX_MAIN_FN", httpx.main.__module__, flush=True)
''')


def test_the_command_skips_them_and_runs_a_turn(demo_server: DemoServer) -> None:
    completed = subprocess.run([sys.executable, "-c", PROBE, demo_server.url], capture_output=True, text=True,
                               cwd=REPO, env=clean_env(), timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr
    *answer, probe = completed.stdout.strip().splitlines()
    assert "".join(answer).strip(), "the turn printed no answer"
    # httpx's own CLI was never imported (its fallback `main` stands in), nor trio.
    assert probe == "STATUS 0 HTTPX_MAIN None TRIO None HTTPX_MAIN_FN httpx"


def test_a_caller_of_main_keeps_its_modules() -> None:
    # `main([...])` from another program (the tests do it) must not change what that program can import.
    code = textwrap.dedent('''
        import sys
        from tandem.tui.cli.entry import main
        try:
            main(["--version"])
        except SystemExit:
            pass
        print(sorted(name for name in ("httpx._main", "trio") if name in sys.modules and sys.modules[name] is None))
    ''')
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                               env=clean_env(), timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip().splitlines()[-1] == "[]"


def test_an_already_imported_module_is_left_alone() -> None:
    import httpx  # noqa: F401  (so `httpx._main` is imported already when click and rich are)

    before = {name: sys.modules.get(name) for name in lean_imports.UNUSED}
    try:
        skipped = lean_imports.skip_unused_imports()
        for name in lean_imports.UNUSED:
            if before[name] is not None:
                assert sys.modules[name] is before[name] and name not in skipped
            else:
                assert sys.modules[name] is None and name in skipped
    finally:
        for name, module in before.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
