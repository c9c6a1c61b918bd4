"""Static scan of a submission for constructs an instructor should look at (never changes a verdict)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from judge.problem import declarations
from judge.report.models import Report

# flag -> names whose mere mention (import, attribute, name, or a string such as getattr(sys, "_getframe"))
# means the code reaches for the judge's or the interpreter's internals, even in code that never runs.
NAMES: dict[str, tuple[str, ...]] = {
    "frame-walking": (
        "_getframe",
        "f_back",
        "f_globals",
        "f_locals",
        "tb_frame",
        "tb_next",
        "gi_frame",
        "cr_frame",
        "ag_frame",
        "currentframe",
        "getouterframes",
        "getinnerframes",
        "_current_frames",
        "_getframemodulename",
    ),
    "gc": ("gc", "get_objects", "get_referrers", "get_referents"),
    "ctypes": ("ctypes", "_ctypes", "cffi", "pythonapi", "CDLL", "PyDLL"),
    "sys-modules": ("modules", "meta_path", "path_hooks", "path_importer_cache"),
    "audit-hook": ("addaudithook", "audit"),
    "trace": ("settrace", "setprofile", "gettrace", "getprofile", "monitoring", "_settraceallthreads"),
    "builtins": ("builtins", "__builtins__"),
    "os-fd": (
        "dup",
        "dup2",
        "fdopen",
        "openpty",
        "set_inheritable",
        "pidfd_open",
        "pidfd_getfd",
        "sendfile",
        "memfd_create",
    ),
    "socket": (
        "socket",
        "_socket",
        "socketpair",
        "fromfd",
        "ssl",
        "urllib",
        "http",
        "requests",
        "sendmsg",
        "recvmsg",
        "SCM_RIGHTS",
    ),
    "signal": ("signal", "kill", "killpg", "pthread_kill", "setitimer", "alarm"),
    "dynamic-code": ("exec", "eval", "compile", "__import__", "import_module", "marshal", "CodeType", "FunctionType"),
    "subprocess": ("subprocess", "system", "popen", "fork", "forkpty", "execv", "execve", "spawnv", "posix_spawn"),
    # Reaching into other functions' code and state (the attacks in docs/threat-model.md use each of these).
    "function-internals": (
        "__globals__",
        "__closure__",
        "cell_contents",
        "__code__",
        "__defaults__",
        "__kwdefaults__",
        "co_code",
        "co_consts",
        "co_names",
        "co_varnames",
    ),
    "threads": ("threading", "_thread"),
    "exit": ("_exit", "abort"),
    "dynamo-internals": ("eval_frame", "set_eval_frame", "symbolic_convert", "current_tx", "convert_frame"),
    "interpreter": (
        "setrecursionlimit",
        "_testcapi",
        "_testinternalcapi",
        "copyreg",
        "MappingProxyType",
        "finalize",
        "__del__",
        "DEBUG_SAVEALL",
        "set_threshold",
    ),
}
# Modules whose attributes above count only when reached through that module (os.write on an int is
# a raw descriptor; a tensor's .write is not). Each entry: module -> (attribute, flag).
MODULE_ATTRS: dict[str, dict[str, str]] = {
    "os": {
        "write": "os-fd",
        "read": "os-fd",
        "close": "os-fd",
        "lseek": "os-fd",
        "pipe": "os-fd",
        "fstat": "os-fd",
        "ftruncate": "os-fd",
        "closerange": "os-fd",
        "open": "os-fd",
    },
    "inspect": {"stack": "frame-walking", "trace": "frame-walking"},
    "sys": {"exc_info": "frame-walking", "exception": "frame-walking"},
}
# Names too common in honest code to flag on their own (a tensor's .stack, a config's .modules): they
# count only as attributes of the module they belong to, or as an import.
# An empty qualifier: the name counts only when imported ("import signal", not a variable called signal).
QUALIFIED_ONLY = {
    "modules": "sys",
    "audit": "sys",
    "system": "os",
    "popen": "os",
    "fork": "os",
    "kill": "os",
    "signal": "",
    "http": "",
    "urllib": "",
    "requests": "",
    "ssl": "",
    "dup": "os",
    "alarm": "signal",
    "monitoring": "sys",
    "gc": "",
    "open": "os",
    "finalize": "weakref",
    "_exit": "os",
    "abort": "os",
}
# Builtins that run code built at run time: they count only as the bare builtin (not model.eval, torch.compile).
BUILTIN_ONLY = {"exec", "eval", "compile", "__import__"}
PATHS = re.compile(r"/proc/(self|\d+|thread-self)|/dev/fd/|/dev/mem")
HOST_PATHS = re.compile(r"/proc/|/sys/|/etc/|/root/|/home/|/dev/(?!null)")

_FLAG_OF = {name: flag for flag, names in NAMES.items() for name in names}
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_PARSE = 2 << 20  # bigger sources are scanned as text only: parsing megabytes costs more than it tells


def source_flags(source: str | bytes) -> list[str]:
    """Sorted flag names for a source; never raises (unparsable or binary sources get a text scan)."""
    try:
        text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else str(source)
        try:
            if len(text) > MAX_PARSE:
                raise ValueError("too large to parse")
            found = _ast_flags(ast.parse(text))
            if declarations.read(text).computed:  # an operator declared by a computed value: read it yourself
                found.add("computed-declaration")
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            found = _text_flags(text) | set(_path_flags(text))  # no tree: comments and strings count too
        return sorted(found)
    except Exception:  # noqa: BLE001 - a scan for humans must never take the judgement down
        return []


def tamper_flags(report: Report) -> list[str]:
    """["tampering"] when the worker's guard found trusted code changed (the report's own fact)."""
    return ["tampering"] if report.tampered else []


def report_flags(source: str | bytes, report: Report) -> list[str]:
    return sorted(set(source_flags(source)) | set(tamper_flags(report)))


def _name_flag(name: str, module: str | None, bare: bool = False) -> str | None:
    """The flag for a name reached through module (None: a bare name or a word in a string)."""
    if module is not None and name in MODULE_ATTRS.get(module, {}):
        return MODULE_ATTRS[module][name]
    flag = _FLAG_OF.get(name)
    if flag is None:
        return None
    if name in BUILTIN_ONLY:
        return flag if bare else None
    qualifier = QUALIFIED_ONLY.get(name)
    if qualifier is None:
        return flag
    return flag if qualifier and module == qualifier else None


def _ast_flags(tree: ast.AST) -> set[str]:
    """From the syntax tree: comments are not in it, and prose strings (docstrings, messages) are left out."""
    roots, internal = _trusted_aliases(tree)
    found: set[str] = {"judge-internals"} if internal else set()
    prose = _prose(tree)
    for node in ast.walk(tree):
        if id(node) in prose:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(_path_flags(node.value))
        if _patches(node, roots):
            found.add("monkeypatch")
        for name, module, kind in _mentions(node):
            flag = _FLAG_OF.get(name) if kind == "import" else _name_flag(name, module, bare=kind == "name")
            if flag:
                found.add(flag)
    return found


# Calls whose string arguments are words for a reader, not names the code reaches for.
PROSE_CALLS = {"print", "warn", "debug", "info", "warning", "error", "exception", "critical", "msg", "log", "write"}


def _prose(tree: ast.AST) -> set[int]:
    """ids of the string constants that are prose: docstrings, assert and raise messages, printed or logged text."""
    out: set[int] = set()

    def strings(node: ast.AST | None) -> None:
        """The string itself, or an f-string's literal parts: never a string nested in a call inside it
        (print(getattr(sys, "_getframe")) still reaches for the frame)."""
        parts = node.values if isinstance(node, ast.JoinedStr) else [node]
        for part in parts:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                out.add(id(part))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                strings(first.value)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            strings(node.value)  # a bare string statement: a comment in quotes
        elif isinstance(node, ast.Assert):
            strings(node.msg)
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for arg in node.exc.args:
                strings(arg)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in PROSE_CALLS:
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    strings(arg)
    return out


# Rebinding these modules' attributes (torch.allclose = ...) is what the worker's guard calls tampering.
PATCHED_ROOTS = {"torch", "pytest", "judge", "sandbox", "sys", "os", "builtins", "importlib", "inspect", "probes"}


def _trusted_aliases(tree: ast.AST) -> tuple[set[str], bool]:
    """Names bound to trusted modules (import judge.worker.observe as observe), and whether any is the judge's."""
    roots, internal = set(PATCHED_ROOTS), False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pairs = [(a.name, a.asname) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            pairs = [(f"{node.module or ''}.{a.name}", a.asname or a.name) for a in node.names]
        else:
            continue
        for module, alias in pairs:
            root = module.split(".")[0]
            internal |= root in JUDGE_ROOTS
            if root in PATCHED_ROOTS | JUDGE_ROOTS and alias:
                roots.add(alias)
    return roots, internal


JUDGE_ROOTS = {"judge", "sandbox", "pytest", "_pytest", "probes", "conftest", "pluggy"}


def _patches(node: ast.AST, roots: set[str]) -> bool:
    """torch.x = ..., del torch.x, setattr(torch, ...): rebinding a trusted module's attribute."""
    targets = []
    if isinstance(node, (ast.Assign, ast.Delete)):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
        targets = [ast.Attribute(value=node.args[0], attr="?")] if node.args else []
    for target in targets:
        while isinstance(target, (ast.Attribute, ast.Subscript)):
            target = target.value
            if isinstance(target, ast.Name) and target.id in roots:
                return True
    return False


def _mentions(node: ast.AST) -> Iterator[tuple[str, str | None, str]]:
    """(name, module it is reached through or None, kind) for what a node names; kind is import/attr/name/string."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            for part in alias.name.split("."):
                yield part, None, "import"
    elif isinstance(node, ast.ImportFrom):
        module = (node.module or "").split(".")
        for part in module:
            yield part, None, "import"
        for alias in node.names:
            yield alias.name, module[0], "attr"
            yield alias.name, module[-1], "attr"
    elif isinstance(node, ast.Attribute):
        base = node.value.id if isinstance(node.value, ast.Name) else None
        yield node.attr, base, "attr"
    elif isinstance(node, ast.Name):
        yield node.id, None, "name"
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__del__":
        yield node.name, None, "name"  # a finalizer runs at a moment the submission does not choose
    elif isinstance(node, ast.keyword) and node.arg:
        yield node.arg, None, "attr"  # code.replace(co_consts=...)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
        for word in _WORDS.findall(node.value):  # getattr(sys, "_getframe"), importlib.import_module("ctypes")
            yield word, None, "string"


def _path_flags(text: str) -> Iterator[str]:
    if PATHS.search(text):
        yield "os-fd"
    if HOST_PATHS.search(text):
        yield "host-files"


def _text_flags(text: str) -> set[str]:
    """For sources that do not parse: any mention of a flagged name, qualified where that matters."""
    found = set()
    for match in re.finditer(r"(?:([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*)?([A-Za-z_][A-Za-z0-9_]*)", text[: MAX_PARSE * 4]):
        module, name = match.group(1), match.group(2)
        flag = _name_flag(name, module) or (_FLAG_OF.get(module) if module and module not in QUALIFIED_ONLY else None)
        if flag:
            found.add(flag)
    return found
