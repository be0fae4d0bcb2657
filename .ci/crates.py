#!/usr/bin/env python3
"""The workspace's crates, read from the one list there is: `members` in Cargo.toml.

The members are listed in layer order, and a crate may depend only on crates listed before
it (the structure check enforces that). Every other list is derived from this one:

- published crates: members without `publish = false` (packaged by `.ci/run`);
- library crates: published crates with a `src/lib.rs` (their public API is listed in
  `public-api/`);
- the crate table of README.md names every member in the same order (the structure check
  compares them).

Usage: crates.py published|libraries   prints the names, one per line
"""
import os
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Crate:
    """One workspace member: its name, folder and manifest."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(ROOT, folder, "Cargo.toml"), "rb") as f:
            self.manifest = tomllib.load(f)
        self.name = self.manifest["package"]["name"]
        self.published = self.manifest["package"].get("publish", True) is not False
        self.is_library = self.published and os.path.exists(os.path.join(ROOT, folder, "src", "lib.rs"))

    def dependencies(self):
        """Names of the crates this one depends on to build (normal and build dependencies;
        dev-dependencies only build its tests, so they may reach up the stack)."""
        names = set()
        for section in ("dependencies", "build-dependencies"):
            for key, spec in self.manifest.get(section, {}).items():
                names.add(spec.get("package", key) if isinstance(spec, dict) else key)
        return names


def members():
    """Every workspace member, in the order Cargo.toml lists them."""
    with open(os.path.join(ROOT, "Cargo.toml"), "rb") as f:
        workspace = tomllib.load(f)["workspace"]
    return [Crate(folder) for folder in workspace["members"]]


def published():
    return [c for c in members() if c.published]


def libraries():
    return [c for c in members() if c.is_library]


if __name__ == "__main__":
    which = {"published": published, "libraries": libraries, "members": members}
    if len(sys.argv) != 2 or sys.argv[1] not in which:
        sys.exit(__doc__)
    for crate in which[sys.argv[1]]():
        print(crate.name)
