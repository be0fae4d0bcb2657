#!/usr/bin/env python3
"""ARCHITECTURE.md names only what exists, so that it cannot drift silently.

Every name it writes in backticks is checked:
- a path (`alkaid-ipc/src/read/`, `codec/messages.rs`, `format/*.fbs`) exists in the
  repository, from its root or as the end of a path in it (the text often names a file
  inside the crate it is talking about);
- a crate or binary (`alkaid-select`, `alkaid-ballista`) is a workspace member or one of
  their binaries;
- a Rust name (`DataType`, `visit_array`, `Lift::Gather`, `layout()`, `with_native!`,
  `alkaid_arrow::arrow59`) appears in the workspace's code, comments and strings left out,
  each segment of a path; a call (`x()`) or a macro (`x!`) is defined as one;
- a feature (`lz4-c`, `tls-ring`) is declared by a Cargo.toml.
Spans that are not names (commands, SQL, URLs, values: anything with spaces, quotes or
other punctuation; words in capitals) are skipped.

Usage: check_architecture.py [--self-test]   (--self-test plants wrong names and expects
each to be found)
"""
import glob
import os
import re
import sys

import crates
from check_structure import strip_comments_and_strings

ROOT = crates.ROOT
SKIPPED_DIRS = {"target", ".git", "node_modules", "__pycache__"}


def repository_files():
    """Every file's path relative to the root, and every directory's with a trailing /."""
    paths = set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS]
        rel = os.path.relpath(dirpath, ROOT)
        if rel != ".":
            paths.add(rel.replace(os.sep, "/") + "/")
        for name in filenames:
            paths.add(os.path.join(rel, name).replace(os.sep, "/").removeprefix("./"))
    return paths


def without_comments(text):
    """Rust source without its comment lines and block comments (strings kept: a name
    such as a cookie's is code)."""
    text = re.sub(r"(?s)/\*.*?\*/", "", text)
    return re.sub(r"(?m)^\s*//.*$", "", text)


def code_words(paths):
    """The words of the workspace's code (Rust without comments, the Python package and
    benches, protobuf and Flatbuffers declarations; not .ci/, whose scripts name what
    they look for), and the functions and macros Rust defines."""
    words, functions, macros = set(), set(), set()
    for path in paths:
        if path.startswith(".ci/"):
            continue
        if path.endswith(".rs"):
            text = without_comments(open(os.path.join(ROOT, path)).read())
            code = strip_comments_and_strings(text)
            functions.update(re.findall(r"\bfn\s+(\w+)", code))
            macros.update(re.findall(r"\bmacro_rules!\s*(\w+)", code))
        elif path.endswith((".py", ".proto", ".fbs", ".pyi")):
            text = open(os.path.join(ROOT, path), errors="replace").read()
        else:
            continue
        words.update(re.findall(r"\w+", text))
    return words, functions, macros


def features_and_binaries():
    """The workspace's crates (also without their `alkaid-` prefix, as the layer chain
    writes them), binaries, features and the crates they depend on."""
    names = set()
    manifests = [os.path.join(ROOT, "Cargo.toml")] + [
        os.path.join(ROOT, member.folder, "Cargo.toml") for member in crates.members()]
    for manifest in manifests:
        text = open(manifest).read()
        for section in re.finditer(r"(?ms)^\[([\w.-]*(features|dependencies))\]\n(.*?)(?=^\[|\Z)",
                                   text):
            names.update(re.findall(r"(?m)^([\w-]+)\s*[=.]", section.group(3)))
        names.update(re.findall(r'(?m)^name\s*=\s*"([\w-]+)"', text))
    for member in crates.members():
        names.update({member.name, member.name.removeprefix("alkaid-")})
    return names


def problems(text, paths, words, functions, macros, declared):
    """What in `text`'s backticks names nothing that exists."""
    found = []
    for span in sorted(set(re.findall(r"`([^`\n]+)`", text))):
        name = span.strip()
        if not name or re.search(r"[\s'\"$?=<>,;@#]|://|^\.", name) or name.isupper():
            continue
        if "/" in name or re.search(r"\.(rs|py|pyi|md|toml|sh|fbs|proto|txt|json)$", name):
            pattern = name.rstrip("/")
            if "*" in pattern:
                if not glob.glob(os.path.join(ROOT, pattern)):
                    found.append(f"`{span}`: no file matches it")
                continue
            if not any(p.rstrip("/") == pattern or p.rstrip("/").endswith("/" + pattern)
                       for p in paths):
                found.append(f"`{span}`: no such file or directory")
            continue
        if "-" in name:
            if name not in declared:
                found.append(f"`{span}`: no crate, binary or feature of that name")
            continue
        if name.endswith("!"):
            if name[:-1] not in macros:
                found.append(f"`{span}`: no macro of that name")
            continue
        call = name.endswith("()")
        segments = [s for s in re.split(r"::|\.", name.removesuffix("()")) if s]
        if not all(re.fullmatch(r"\w+", s) for s in segments):
            continue
        missing = [s for s in segments if s not in words]
        if missing:
            found.append(f"`{span}`: {', '.join(missing)} appears nowhere in the code")
        elif call and segments[-1] not in functions:
            found.append(f"`{span}`: no function of that name")
    return found


def main():
    paths = repository_files()
    words, functions, macros = code_words(paths)
    declared = features_and_binaries()
    text = open(os.path.join(ROOT, "ARCHITECTURE.md")).read()
    if "--self-test" in sys.argv:
        planted = ["`NoSuchTypeAnywhere`", "`alkaid-ipc/src/no_such_file.rs`",
                   "`no_such_function()`", "`alkaid-nothing`", "`no_such_macro!`",
                   "`DataType::NoSuchVariant`"]
        for name in planted:
            found = problems(text + f"\nplanted: {name}\n", paths, words, functions, macros,
                             declared)
            if not any(line.startswith(name) for line in found):
                sys.exit(f"check_architecture.py did not find the planted wrong name {name}")
        print(f"check_architecture.py: each of {len(planted)} planted wrong names found")
        return
    found = problems(text, paths, words, functions, macros, declared)
    for line in found:
        print(f"ARCHITECTURE.md names {line}")
    if found:
        sys.exit(1)
    print("ARCHITECTURE.md: every name in backticks exists")


if __name__ == "__main__":
    main()
