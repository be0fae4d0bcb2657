#!/usr/bin/env python3
"""Structure checks that the compiler does not make.

1. No import circles between the files of one crate: if file A names an item of file B
   (`use crate::b::x`, `super::x`, `crate::b::f()`), then B never names A, directly or
   through others. A parent module declaring `mod child;` or re-exporting its items with
   `pub use` is not an import; a parent calling `child::f()` is. Nor between a crate's
   top-level modules taken whole (a folder and everything in it): a lower part (the
   codecs, the text helpers) never reaches up into a part built on it (the readers, the
   casts), except for the pairs of TOP_LEVEL_PAIRS, each with its reason.
2. The number of `match` expressions over `DataType` with 15 or more arms in library code
   stays at or below the committed ceiling, so per-type dispatch keeps going through the
   layout table and the type visitors (see ARCHITECTURE.md).
3. No library file over 800 lines (generated code and tests aside): a file holds one
   concept and fits on a few screens.
4. Crates are layers: a crate depends (normal and build dependencies) only on crates listed
   before it in the workspace's `members` (`crates.py`), and README.md's crate table names
   the published crates in that order, each with the Alkaid crates it depends on.

Usage: check_structure.py [--list]   (--list prints every large match it counts)
"""
import os
import re
import sys

import crates

ROOT = crates.ROOT
MEMBERS = crates.members()
LIBRARY_CRATES = [c.folder for c in MEMBERS if c.is_library]
ALL_CRATES = [c.folder for c in MEMBERS if os.path.isdir(os.path.join(ROOT, c.folder, "src"))]
# The ceiling for large `match`es over DataType in library code. Lower it when one goes;
# never raise it without saying why in the commit.
MAX_LARGE_TYPE_MATCHES = int(open(os.path.join(ROOT, ".ci", "large_type_matches")).read())
LARGE = 15
# Top-level modules that depend on each other by nature, with why.
TOP_LEVEL_PAIRS = {
    ("alkaid-schema", frozenset({"datatype", "field"})):
        "a type holds fields and a field holds a type: the two are defined in terms of "
        "each other",
}
# The most lines a library file may have.
MAX_FILE_LINES = 800


def strip_comments_and_strings(text):
    """Blank out comments, strings and char literals, keeping offsets and newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not re.match(r"\w", text[i - 1:i] or " "):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_test_modules(text):
    """Remove `#[cfg(test)] mod name { ... }` bodies (inline test modules), also those
    under `#[cfg(all(test, ...))]`."""
    while True:
        m = re.search(r"#\[cfg\((all\()?test\b[^\]]*\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", text)
        if not m:
            return text
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        text = text[:m.start()] + re.sub(r"[^\n]", " ", text[m.start():j]) + text[j:]


def crate_files(crate):
    """Map module path (tuple) -> file path for a crate's src/, skipping test files."""
    src = os.path.join(ROOT, crate, "src")
    files = {}
    for dirpath, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            files[tuple(parts)] = os.path.join(dirpath, name)
    return files


def is_test_file(path):
    parts = path.split(os.sep)
    return "tests" in parts or os.path.basename(path) in ("tests.rs",) or "generated" in parts


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"\bas\w+$", "", tree)]
    prefix, inner = tree[:brace], tree[brace + 1:tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    out = []
    for p in parts:
        if p:
            out.extend(expand_use_tree(prefix + p))
    return out


def resolve(module, path, files):
    """The file a path used in `module` points at, or None for other crates / std."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(module)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    else:
        return None
    target = tuple(base)
    for s in segs:
        if target + (s,) in files:
            target = target + (s,)
        else:
            break
    return target


def import_graph(crate):
    files = crate_files(crate)
    graph = {}
    for module, path in files.items():
        if is_test_file(path):
            continue
        text = strip_test_modules(strip_comments_and_strings(open(path).read()))
        # `pub use` re-exports shape the public API (every crate root re-exports its
        # modules' items); they are not a file depending on another's code.
        text = re.sub(r"\bpub(\([^)]*\))?\s+use\s+[^;]+;", "", text)
        edges = set()
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            for p in expand_use_tree(m.group(1)):
                if not re.match(r"(crate|super|self)::", p) and module + (p.split("::")[0],) in files:
                    p = "self::" + p
                edges.add(resolve(module, p, files))
        for m in re.finditer(r"(?<![\w:$])((?:crate|super|self)(?:::\w+)+)", text):
            edges.add(resolve(module, m.group(1), files))
        # A parent calling into a child module (`values::check(..)`) depends on it too.
        for m in re.finditer(r"(?<![\w:])([a-z_]\w*)::", text):
            if module + (m.group(1),) in files:
                edges.add(module + (m.group(1),))
        edges.discard(None)
        edges.discard(module)
        graph[module] = {e for e in edges if e in files and not is_test_file(files[e])}
    return files, graph


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def top_level_circles(crate):
    """Circles between a crate's top-level modules, each taken with all its files."""
    _, graph = import_graph(crate)
    top = {}
    for module, edges in graph.items():
        for other in edges:
            if module and other and module[0] != other[0]:
                top.setdefault(module[0], set()).add(other[0])
    return cycles(top)


def data_type_variants():
    text = open(os.path.join(ROOT, "alkaid-schema", "src", "datatype", "mod.rs")).read()
    body = text[text.index("pub enum DataType"):]
    body = body[:body.index("\n}")]
    body = re.sub(r"//[^\n]*", "", body)
    return set(re.findall(r"^\s{4}([A-Z]\w*)", body, re.M))


VARIANTS = data_type_variants()


# Enums whose variants share names with DataType's but are not types of Arrow: a match
# over one is that enum's own table (the Variant's primitive types are its spec's).
OTHER_ENUMS = {"Variant"}


def is_type_pattern(pattern):
    """An arm pattern that names a DataType variant (`DataType::X`, `D::X`, `Self::X`, `X`)."""
    return any(name in VARIANTS and qualifier not in OTHER_ENUMS
               for qualifier, name in re.findall(r"(?:^|[|\s])(?:(\w+)::)?([A-Z]\w*)", pattern))


def large_type_matches(crate):
    found = []
    for module, path in crate_files(crate).items():
        if is_test_file(path):
            continue
        text = strip_test_modules(strip_comments_and_strings(open(path).read()))
        for m in re.finditer(r"\bmatch\b", text):
            open_brace = text.find("{", m.end())
            # The scrutinee may hold braces (a block); take the brace that opens the arms as
            # the first one at bracket depth zero.
            depth, j = 0, m.end()
            while j < len(text):
                c = text[j]
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif c == "{" and depth == 0:
                    break
                j += 1
            open_brace = j
            depth, k, arms, patterns, arm_start = 1, open_brace + 1, 0, [], open_brace + 1
            while k < len(text) and depth:
                c = text[k]
                if c in "{([":
                    depth += 1
                elif c in "})]":
                    depth -= 1
                elif depth == 1 and text.startswith("=>", k):
                    arms += 1
                    patterns.append(text[arm_start:k])
                if depth == 1 and c in ",}":
                    arm_start = k + 1
                k += 1
            if arms >= LARGE and sum(is_type_pattern(p) for p in patterns) >= LARGE // 2:
                line = text.count("\n", 0, m.start()) + 1
                found.append((os.path.relpath(path, ROOT), line, arms))
    return found


def layer_errors():
    """Dependencies on crates listed later, and a README crate table that disagrees."""
    errors = []
    position = {c.name: i for i, c in enumerate(MEMBERS)}
    for i, crate in enumerate(MEMBERS):
        for dep in sorted(crate.dependencies() & position.keys()):
            if position[dep] >= i:
                errors.append(f"{crate.name} depends on {dep}, which the workspace's members "
                              f"list after it: crates are layers (ARCHITECTURE.md)")
    readme = open(os.path.join(ROOT, "README.md")).read()
    table = readme[readme.index("## Crates"):]
    table = table[:table.index("\n## ")]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = cells[0].strip("`")
        if name in position and len(cells) >= 3:
            tokens = re.findall(r"[\w-]+", cells[2])
            rows[name] = {"alkaid-" + t for t in tokens if "alkaid-" + t in position}
    listed = [c.name for c in MEMBERS if c.name in rows]
    if list(rows) != listed:
        errors.append(f"README.md's crate table lists {list(rows)}; the workspace's order is {listed}")
    architecture = open(os.path.join(ROOT, "ARCHITECTURE.md")).read()
    chain = re.search(r"Crates are layers: `([^`]*)`", architecture)
    layers = [name.strip() for name in chain.group(1).split("→")] if chain else []
    if layers != [name.removeprefix("alkaid-") for name in listed]:
        errors.append(f"ARCHITECTURE.md's layers are {layers}; the workspace's order is {listed}")
    for crate in MEMBERS:
        if crate.name not in rows:
            if crate.published:
                errors.append(f"README.md's crate table has no row for {crate.name}")
            continue
        actual = crate.dependencies() & position.keys()
        if rows[crate.name] != actual:
            short = lambda names: ", ".join(sorted(n.removeprefix("alkaid-") for n in names)) or "none"
            errors.append(f"README.md says {crate.name} depends on {short(rows[crate.name])}; "
                          f"its Cargo.toml says {short(actual)}")
    return errors


def main():
    failed = False
    for error in layer_errors():
        print(error)
        failed = True
    for crate in ALL_CRATES:
        files, graph = import_graph(crate)
        for comp in cycles(graph):
            names = sorted(os.path.relpath(files[c], ROOT) for c in comp)
            print(f"import circle in {crate}: " + " <-> ".join(names))
            failed = True
    for crate in LIBRARY_CRATES:
        for path in crate_files(crate).values():
            if is_test_file(path):
                continue
            lines = open(path).read().count("\n")
            if lines > MAX_FILE_LINES:
                print(f"{os.path.relpath(path, ROOT)} has {lines} lines: a library file holds "
                      f"one concept in at most {MAX_FILE_LINES} (split it by what its parts are)")
                failed = True
    for crate in ALL_CRATES:
        for comp in top_level_circles(crate):
            if (crate, frozenset(comp)) not in TOP_LEVEL_PAIRS:
                print(f"import circle in {crate} between top-level modules: "
                      + " <-> ".join(sorted(comp)) + " (move what both need below both)")
                failed = True
    matches = [m for c in LIBRARY_CRATES for m in large_type_matches(c)]
    if "--list" in sys.argv:
        for path, line, arms in sorted(matches):
            print(f"{path}:{line}: match over DataType with {arms} arms")
    print(f"{len(matches)} matches over DataType with {LARGE}+ arms in library code "
          f"(ceiling {MAX_LARGE_TYPE_MATCHES})")
    if len(matches) > MAX_LARGE_TYPE_MATCHES:
        print("a new large match over DataType: dispatch through the layout table or a visitor "
              "(ARCHITECTURE.md), or raise .ci/large_type_matches and say why in the commit", file=sys.stderr)
        failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
