#!/usr/bin/env python3
"""Packages every published crate (`cargo package`, nothing uploaded) and compiles each from
its package alone, so that a file a crate needs but its package leaves out is found here
and not by a user.

`cargo package`'s own verification builds each package in a workspace of its own, without
this workspace's profiles or feature set: every dependency once more, unoptimised and with
full debug information (minutes on two cores). Here the packages are unpacked into a copy
of this workspace instead, in which each published crate is its unpacked package (its
siblings resolve to the unpacked packages too, through `[patch.crates-io]`, since a
package names them by version) and the unpublished members are copies of theirs. The copy
has this workspace's members, profiles, lock file and so features, so `cargo check
--workspace --all-features` there compiles only the crates themselves: every dependency's
check build is the one the docs step made.

Usage: package_check.py   (honours CARGO_TARGET_DIR, as .ci/run sets it)
"""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib

import crates

ROOT = crates.ROOT


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    with open(os.path.join(ROOT, "Cargo.toml"), "rb") as f:
        version = tomllib.load(f)["workspace"]["package"]["version"]
    members = crates.members()
    published = [c for c in members if c.published]

    # Cargo unpacks the overlay registry's packages under $CARGO_HOME/registry/src/-<hash>/
    # and reuses an unpacked copy of the same name and version on the next run, even when
    # the sources changed since (0.1.0 stays 0.1.0 between commits): remove our crates'.
    cargo_home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    for unpacked in _glob_dirs(os.path.join(cargo_home, "registry", "src"), "-", "alkaid-"):
        shutil.rmtree(unpacked)
    package = ["cargo", "package", "--locked", "--no-verify", "--allow-dirty"]
    for crate in published:
        package += ["-p", crate.name]
    # Offline first: every dependency is in the local index cache by now; online if not.
    if subprocess.run(package + ["--offline"], cwd=ROOT).returncode != 0:
        subprocess.run(package, cwd=ROOT, check=True)

    scratch = os.path.join(target, "package-check")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    folder_of = {}
    for crate in published:
        with tarfile.open(os.path.join(target, "package", f"{crate.name}-{version}.crate")) as t:
            t.extractall(scratch, filter="data")
        folder_of[crate.folder] = f"{crate.name}-{version}"
    # Cargo writes every file of a package with one fixed old time (reproducible packages),
    # and judges a path dependency fresh by its files' times: with a warm target directory
    # the check of the packages before would be taken for this one's. Their files are
    # dated now instead.
    for folder, _, files in os.walk(scratch):
        for name in files:
            os.utime(os.path.join(folder, name))
    for crate in members:
        if not crate.published:
            folder_of[crate.folder] = crate.folder
            shutil.copytree(os.path.join(ROOT, crate.folder), os.path.join(scratch, crate.folder),
                            ignore=shutil.ignore_patterns("target"))

    manifest = open(os.path.join(ROOT, "Cargo.toml")).read()
    # The members: the unpacked packages in place of the published crates' folders.
    manifest = re.sub(r'^members = \[[^\]]*\]',
                      "members = [" + ", ".join(f'"{folder_of[c.folder]}"' for c in members) + "]",
                      manifest, count=1, flags=re.M)
    # The workspace's own dependency table points at them too.
    for crate in published:
        manifest = manifest.replace(f'{crate.name} = {{ path = "{crate.folder}"',
                                    f'{crate.name} = {{ path = "{folder_of[crate.folder]}"')
    manifest += "\n# The published crates as their packages name each other: by version.\n"
    manifest += "[patch.crates-io]\n" + "".join(
        f'{c.name} = {{ path = "{folder_of[c.folder]}" }}\n' for c in published)
    with open(os.path.join(scratch, "Cargo.toml"), "w") as f:
        f.write(manifest)
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), scratch)
    shutil.copytree(os.path.join(ROOT, ".cargo"), os.path.join(scratch, ".cargo"))

    subprocess.run(["cargo", "check", "--workspace", "--all-features", "--offline"],
                   cwd=scratch, check=True)
    print(f"packaged {len(published)} crates and compiled each from its package")


def _glob_dirs(parent, prefix, name_prefix):
    """`parent/<prefix>*/<name_prefix>*` folders."""
    if not os.path.isdir(parent):
        return []
    found = []
    for registry in os.listdir(parent):
        if registry.startswith(prefix):
            base = os.path.join(parent, registry)
            found += [os.path.join(base, d) for d in os.listdir(base) if d.startswith(name_prefix)]
    return found


if __name__ == "__main__":
    sys.exit(main())
