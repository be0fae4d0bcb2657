#!/usr/bin/env python3
"""A newcomer's path, run as written: the code blocks of README.md's "Try it" tasks
(each `### ` section under it; the first block, the two commands, is the suite itself and
is left to `.ci/run`), in order, in one scratch directory, with `alkaid` on the PATH and
the Python package importable. A block that fails fails the check, with its output.

`sh` blocks run in bash with `set -euo pipefail`, and whatever a block left running in
the background (a server) is stopped when it ends, failed or not; `python` blocks run in
the interpreter given. Install steps are prose in the README, not blocks: the run uses what `.ci/run`
built (the `alkaid` binary with the `sql` feature, the package its test pass built).

Usage: readme_tasks.py --alkaid BIN --python PYTHON --pythonpath DIR
       readme_tasks.py --list    (prints the blocks it would run)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Long enough for the demo's million rows in a debug build beside other work; a block
# past it is stopped and fails.
TIMEOUT_SECONDS = 600


def task_blocks(readme):
    """[(section, language, code)] of the `### ` sections under `## Try it`."""
    start = readme.index("## Try it")
    end = readme.find("\n## ", start + 1)
    section_text = readme[start:end if end >= 0 else len(readme)]
    blocks = []
    section = None
    for part in re.split(r"(?m)^(### .*)$", section_text):
        if part.startswith("### "):
            section = part[4:].strip()
            continue
        if section is None:
            continue
        for m in re.finditer(r"(?ms)^```(\w+)\n(.*?)^```", part):
            blocks.append((section, m.group(1), m.group(2)))
    return blocks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--alkaid")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--pythonpath", default="")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    blocks = task_blocks(open(os.path.join(ROOT, "README.md")).read())
    languages = {language for _, language, _ in blocks}
    if not blocks or not languages <= {"sh", "python"}:
        sys.exit(f"README.md's tasks: expected sh and python blocks, found {sorted(languages)}")
    if args.list:
        for section, language, code in blocks:
            print(f"--- {section} ({language})\n{code}")
        return
    if not args.alkaid or not os.access(args.alkaid, os.X_OK):
        sys.exit(f"--alkaid {args.alkaid!r} is not an executable")
    with tempfile.TemporaryDirectory(prefix="alkaid-readme-") as scratch:
        bin_dir = os.path.join(scratch, ".bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(args.alkaid), os.path.join(bin_dir, "alkaid"))
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"],
                   PYTHONPATH=args.pythonpath)
        for section, language, code in blocks:
            stop_background = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
            command = (["bash", "-c", "set -euo pipefail\n" + stop_background + code]
                       if language == "sh"
                       else [args.python, "-c", code])
            try:
                done = subprocess.run(command, cwd=scratch, env=env, capture_output=True,
                                      text=True, timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                sys.exit(f"README.md, task {section!r}: still running after "
                         f"{TIMEOUT_SECONDS} s:\n{code}")
            if done.returncode != 0:
                sys.exit(f"README.md, task {section!r} failed (exit {done.returncode}):\n"
                         f"{code}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}")
            print(f"README.md task {section!r} ({language}): ok")


if __name__ == "__main__":
    main()
