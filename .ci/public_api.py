#!/usr/bin/env python3
"""The public API of each library crate as a sorted text listing, from rustdoc's JSON.

    public_api.py write    regenerate public-api/<crate>.txt (commit the result)
    public_api.py check    regenerate into a temporary place and fail if anything differs

Every public item reachable from the crate root is one line: modules, types with their
public fields and variants, functions and methods with their signatures, traits with their
items, constants, and the trait implementations of public types (auto traits and blanket
impls left out). A change to a line is a change to the API: the CI check makes it
deliberate, and the CHANGELOG says why.

rustdoc's JSON output is unstable; stable toolchains produce it with RUSTC_BOOTSTRAP=1,
which this script sets for its own rustdoc runs only (through `.ci/rustdoc-json`).
"""
import json
import os
import subprocess
import sys
import tempfile

import crates

ROOT = crates.ROOT
# The library crates, from the workspace's one list (crates.py).
CRATES = [c.name for c in crates.libraries()]
AUTO_TRAITS = {"Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe", "Freeze"}


def kind_of(item):
    inner = item["inner"]
    return next(iter(inner)) if isinstance(inner, dict) else inner


class Renderer:
    def __init__(self, doc):
        self.index = doc["index"]
        self.paths = doc["paths"]

    def ty(self, t):
        if t is None:
            return "()"
        (k, v), = t.items()
        if k == "primitive" or k == "generic":
            return v
        if k == "resolved_path":
            return self.short(v["path"]) + self.args(v.get("args"))
        if k == "borrowed_ref":
            life = v["lifetime"] + " " if v.get("lifetime") else ""
            return "&" + life + ("mut " if v["is_mutable"] else "") + self.ty(v["type"])
        if k == "raw_pointer":
            return ("*mut " if v["is_mutable"] else "*const ") + self.ty(v["type"])
        if k == "slice":
            return "[" + self.ty(v) + "]"
        if k == "array":
            return "[" + self.ty(v["type"]) + "; " + v["len"] + "]"
        if k == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ")"
        if k == "impl_trait":
            return "impl " + self.bounds(v)
        if k == "dyn_trait":
            parts = [self.poly(p) for p in v["traits"]]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if k == "qualified_path":
            trait = self.path(v["trait"]) if v.get("trait") else ""
            return f"<{self.ty(v['self_type'])} as {trait}>::{v['name']}" if trait \
                else f"{self.ty(v['self_type'])}::{v['name']}"
        if k == "function_pointer":
            sig = v["sig"]
            inputs = ", ".join(self.ty(x[1]) for x in sig["inputs"])
            out = sig.get("output")
            return f"fn({inputs})" + (f" -> {self.ty(out)}" if out else "")
        if k == "infer":
            return "_"
        return k

    def short(self, path):
        # The name alone: the source's spelling of a path (`crate::error::X`, `alkaid_array::Y`)
        # changes when code moves without the type changing.
        return path.split("::")[-1]

    def path(self, p):
        return self.short(p["path"]) + self.args(p.get("args"))

    def poly(self, p):
        return self.path(p["trait"])

    def args(self, args):
        if not args:
            return ""
        if "angle_bracketed" in args:
            a = args["angle_bracketed"]
            parts = []
            for arg in a["args"]:
                (k, v), = arg.items() if isinstance(arg, dict) else (("x", arg),)
                parts.append(self.ty(v) if k == "type" else (v if isinstance(v, str) else
                                                               json.dumps(v, sort_keys=True)))
            for c in a.get("constraints", []):
                binding = c["binding"]
                if "equality" in binding:
                    eq = binding["equality"]
                    parts.append(f"{c['name']} = " + (self.ty(eq["type"]) if "type" in eq else str(eq)))
                else:
                    parts.append(f"{c['name']}: " + self.bounds(binding["constraint"]))
            return "<" + ", ".join(parts) + ">" if parts else ""
        if "parenthesized" in args:
            p = args["parenthesized"]
            out = f" -> {self.ty(p['output'])}" if p.get("output") else ""
            return "(" + ", ".join(self.ty(x) for x in p["inputs"]) + ")" + out
        return ""

    def bounds(self, bounds):
        out = []
        for b in bounds:
            if "trait_bound" in b:
                tb = b["trait_bound"]
                prefix = "?" if tb.get("modifier") == "maybe" else ""
                out.append(prefix + self.path(tb["trait"]))
            elif "outlives" in b:
                out.append(b["outlives"])
            else:
                out.append(json.dumps(b, sort_keys=True))
        return " + ".join(out)

    def generics(self, g):
        params = []
        for p in g["params"]:
            kind = p["kind"]
            if "lifetime" in kind:
                params.append(p["name"])
            elif "type" in kind:
                if kind["type"].get("is_synthetic"):
                    continue
                b = self.bounds(kind["type"]["bounds"])
                params.append(p["name"] + (": " + b if b else ""))
            elif "const" in kind:
                params.append(f"const {p['name']}: {self.ty(kind['const']['type'])}")
        text = "<" + ", ".join(params) + ">" if params else ""
        wheres = []
        for w in g.get("where_predicates", []):
            if "bound_predicate" in w:
                bp = w["bound_predicate"]
                wheres.append(self.ty(bp["type"]) + ": " + self.bounds(bp["bounds"]))
        return text, (" where " + ", ".join(wheres) if wheres else "")

    def function(self, name, f):
        header = f["header"]
        quals = ("const " if header["is_const"] else "") + ("async " if header["is_async"] else "") \
            + ("unsafe " if header["is_unsafe"] else "")
        if header.get("abi") not in (None, "Rust"):
            abi = header["abi"]
            quals += f'extern "{abi if isinstance(abi, str) else next(iter(abi))}" '
        gen, where = self.generics(f["generics"])
        inputs = []
        for arg, t in f["sig"]["inputs"]:
            if arg == "self":
                rendered = self.ty(t)
                inputs.append({"Self": "self", "&Self": "&self", "&mut Self": "&mut self"}.get(
                    rendered, "self: " + rendered))
            else:
                inputs.append(f"{arg}: {self.ty(t)}")
        out = f["sig"].get("output")
        ret = f" -> {self.ty(out)}" if out else ""
        return f"{quals}fn {name}{gen}({', '.join(inputs)}){ret}{where}"


def listing(doc):
    r = Renderer(doc)
    index = doc["index"]
    lines = set()
    seen = set()

    def item(iid):
        return index.get(str(iid))

    def impls(owner_path, ids):
        for iid in ids:
            imp = item(iid)
            if imp is None:
                continue
            v = imp["inner"]["impl"]
            if v["is_synthetic"] or v.get("blanket_impl") is not None:
                continue
            gen, where = r.generics(v["generics"])
            target = r.ty(v["for"])
            if v["trait"] is not None:
                trait = r.path(v["trait"])
                if trait.split("<")[0] in AUTO_TRAITS:
                    continue
                neg = "!" if v.get("is_negative") else ""
                lines.add(f"impl{gen} {neg}{trait} for {target}{where}")
                continue
            for mid in v["items"]:
                m = item(mid)
                if m is None or m.get("visibility") != "public":
                    continue
                member(f"{owner_path}", m, f"impl{gen} {target}{where}")

    def member(owner, m, context):
        k = kind_of(m)
        inner = m["inner"][k] if isinstance(m["inner"], dict) else None
        if k == "function":
            lines.add(f"pub {r.function(owner + '::' + m['name'], inner)}")
        elif k == "assoc_const":
            lines.add(f"pub const {owner}::{m['name']}: {r.ty(inner['type'])}")
        elif k == "assoc_type":
            b = r.bounds(inner.get("bounds", []))
            lines.add(f"type {owner}::{m['name']}" + (f": {b}" if b else "")
                      + (f" = {r.ty(inner['type'])}" if inner.get("type") else ""))

    def walk(iid, path):
        it = item(iid)
        if it is None:
            return
        k = kind_of(it)
        inner = it["inner"][k] if isinstance(it["inner"], dict) else None
        key = (iid, path)
        if key in seen:
            return
        seen.add(key)
        name = it.get("name")
        here = (f"{path}::{name}" if path else name) if name else path
        if k == "module":
            if path and it.get("visibility") != "public":
                return
            lines.add(f"pub mod {here}")
            for child in inner["items"]:
                walk(child, here)
        elif k == "use":
            if inner["id"] is not None and item(inner["id"]) is not None:
                target = item(inner["id"])
                if inner["is_glob"]:
                    for child in target["inner"].get("module", {}).get("items", []):
                        walk(child, path)
                else:
                    clone = dict(target)
                    clone["name"] = inner["name"]
                    walk_as(inner["id"], clone, path)
            else:
                lines.add(f"pub use {path}::{inner['name']} = {inner['source']}")
        else:
            walk_as(iid, it, path)

    def walk_as(iid, it, path):
        k = kind_of(it)
        inner = it["inner"][k] if isinstance(it["inner"], dict) else None
        here = f"{path}::{it['name']}"
        if k == "module":
            key = (iid, here)
            if key in seen:
                return
            seen.add(key)
            lines.add(f"pub mod {here}")
            for child in inner["items"]:
                walk(child, here)
        elif k == "struct":
            gen, where = r.generics(inner["generics"])
            lines.add(f"pub struct {here}{gen}{where}")
            kind = inner["kind"]
            fields = kind.get("plain", {}).get("fields", []) if isinstance(kind, dict) else []
            if isinstance(kind, dict) and "tuple" in kind:
                fields = [f for f in kind["tuple"] if f is not None]
            for fid in fields:
                f = item(fid)
                if f and f.get("visibility") == "public":
                    lines.add(f"pub {here}::{f['name']}: {r.ty(f['inner']['struct_field'])}")
            impls(here, inner["impls"])
        elif k == "enum":
            gen, where = r.generics(inner["generics"])
            lines.add(f"pub enum {here}{gen}{where}")
            for vid in inner["variants"]:
                v = item(vid)
                vk = v["inner"]["variant"]["kind"]
                if isinstance(vk, dict) and "tuple" in vk:
                    tys = [r.ty(item(f)["inner"]["struct_field"]) for f in vk["tuple"] if f is not None]
                    lines.add(f"pub {here}::{v['name']}({', '.join(tys)})")
                elif isinstance(vk, dict) and "struct" in vk:
                    fs = [f"{item(f)['name']}: {r.ty(item(f)['inner']['struct_field'])}"
                          for f in vk["struct"]["fields"]]
                    lines.add(f"pub {here}::{v['name']} {{ {', '.join(fs)} }}")
                else:
                    lines.add(f"pub {here}::{v['name']}")
            impls(here, inner["impls"])
        elif k == "union":
            lines.add(f"pub union {here}")
            impls(here, inner["impls"])
        elif k == "function":
            lines.add(f"pub {r.function(here, inner)}")
        elif k == "trait":
            gen, where = r.generics(inner["generics"])
            bounds = r.bounds(inner["bounds"])
            unsafe = "unsafe " if inner["is_unsafe"] else ""
            lines.add(f"pub {unsafe}trait {here}{gen}" + (f": {bounds}" if bounds else "") + where)
            for mid in inner["items"]:
                m = item(mid)
                if m is not None:
                    member(here, m, "")
            for iid in inner.get("implementations", []):
                imp = item(iid)
                if imp is None or imp["inner"]["impl"].get("blanket_impl") is not None:
                    continue
                v = imp["inner"]["impl"]
                gen, where = r.generics(v["generics"])
                lines.add(f"impl{gen} {r.path(v['trait'])} for {r.ty(v['for'])}{where}")
        elif k == "type_alias":
            gen, _ = r.generics(inner["generics"])
            lines.add(f"pub type {here}{gen} = {r.ty(inner['type'])}")
        elif k == "constant":
            lines.add(f"pub const {here}: {r.ty(inner['type'])}")
        elif k == "static":
            lines.add(f"pub static {here}: {r.ty(inner['type'])}")
        elif k in ("macro", "proc_macro"):
            lines.add(f"pub macro {here}!")
        else:
            lines.add(f"pub {k} {here}")

    walk(doc["root"], "")
    return sorted(lines)


def generate(out_dir):
    # The whole workspace with every feature, as the docs step builds it, so that the
    # dependencies' builds are that step's; only the library crates' listings are kept.
    env = dict(os.environ, RUSTDOC=os.path.join(ROOT, ".ci", "rustdoc-json"),
               RUSTDOCFLAGS="-Z unstable-options --output-format json")
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    args = ["cargo", "doc", "--no-deps", "--workspace", "--all-features"]
    subprocess.run(args, cwd=ROOT, env=env, check=True)
    for crate in CRATES:
        path = os.path.join(target, "doc", crate.replace("-", "_") + ".json")
        doc = json.load(open(path))
        text = "\n".join(listing(doc)) + "\n"
        with open(os.path.join(out_dir, crate + ".txt"), "w") as f:
            f.write(text)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    committed = os.path.join(ROOT, "public-api")
    if mode == "write":
        os.makedirs(committed, exist_ok=True)
        generate(committed)
        return
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        changed = subprocess.run(["diff", "-ru", committed, fresh]).returncode
    if changed:
        print("the public API changed (diff above, - committed, + now): if that is meant, run "
              ".ci/public_api.py write, commit public-api/, and say what changed in "
              "CHANGELOG.md", file=sys.stderr)
        sys.exit(1)
    print("public API unchanged")


if __name__ == "__main__":
    main()
