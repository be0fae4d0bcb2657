"""The type stubs (`_alkaid.pyi`) against the extension module: every class, method,
property and function the module has is in the stubs, and the stubs name nothing the
module lacks; every public item has a docstring for `help()`."""

import ast
import inspect
from pathlib import Path

import alkaid
from alkaid import _alkaid

STUBS = Path(alkaid.__file__).with_name("_alkaid.pyi")

# What every pyo3 class has without declaring it.
IMPLICIT = {"__new__", "__doc__", "__module__", "__dict__", "__weakref__", "__init__",
            "__hash__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__repr__",
            "__str__"}


def stubbed():
    """{name: None for a function, or the set of member names for a class}."""
    tree = ast.parse(STUBS.read_text())
    items = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            items[node.name] = {
                item.name for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        elif isinstance(node, ast.FunctionDef):
            items[node.name] = None
    return items


def module_items():
    items = {}
    for name, value in vars(_alkaid).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(value):
            members = {member for member in vars(value) if member not in IMPLICIT}
            # An exception's members are Python's; the stub names the class alone.
            items[name] = set() if issubclass(value, BaseException) else members
        elif callable(value):
            items[name] = None
    return items


def test_the_stubs_name_what_the_module_has_and_nothing_else():
    stubs, module = stubbed(), module_items()
    assert sorted(set(module) - set(stubs)) == [], "in the module, not the stubs"
    assert sorted(set(stubs) - set(module)) == [], "in the stubs, not the module"
    for name, members in module.items():
        if members is None or not members and stubs[name] == set():
            continue
        declared = stubs[name] - IMPLICIT
        assert sorted(members - declared) == [], f"{name}: in the module, not the stubs"
        assert sorted(declared - members) == [], f"{name}: in the stubs, not the module"


def test_every_public_item_has_a_docstring():
    for name, value in vars(_alkaid).items():
        if name.startswith("_"):
            continue
        assert (value.__doc__ or "").strip(), name
        if inspect.isclass(value) and not issubclass(value, BaseException):
            for member, item in vars(value).items():
                if member.startswith("_") or member in IMPLICIT:
                    continue
                assert (getattr(item, "__doc__", "") or "").strip(), f"{name}.{member}"


def test_the_compute_stubs_name_every_kernel_and_only_those():
    import alkaid.compute as compute
    tree = ast.parse(Path(compute.__file__).with_suffix(".pyi").read_text())
    stubbed = {node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    kernels = {name for name, value in vars(_alkaid.compute).items()
               if not name.startswith("_") and callable(value)}
    public = {name for name in vars(compute) if not name.startswith("_")}
    assert sorted(kernels - stubbed) == [], "kernels missing from compute.pyi"
    assert sorted(stubbed - public) == [], "stubs naming what alkaid.compute lacks"
    assert sorted(public - stubbed) == [], "alkaid.compute names missing from compute.pyi"
    for name in kernels:
        assert (getattr(_alkaid.compute, name).__doc__ or "").strip(), name
