"""Dependencies point one way (web -> judge -> sandbox), and importing the core stays light."""

import subprocess
import sys


def _modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_judge_core_imports_no_web_framework_docker_or_torch():
    loaded = _modules_after("import judge, judge.cli, judge.service")
    assert not {"fastapi", "starlette", "docker", "web", "torch"} & loaded


def test_sandbox_imports_nothing_from_judge():
    loaded = _modules_after("import sandbox, sandbox.zygote")
    assert not {m for m in loaded if m == "judge" or m.startswith("judge.")}
