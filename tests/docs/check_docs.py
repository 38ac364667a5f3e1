#!/usr/bin/env python3
"""The documentation's promises, checked: README.md short, no line over 200 characters, every relative link and
image resolves (anchors included), every docs/ page linked from README.md or its folder's README.md, every
tracelight-cli command in the CLI page and the JSON reference, no test names or work-log phrases in user pages,
and nothing in the sources or --help texts pointing outside the repository.

usage: check_docs.py REPOSITORY_ROOT TRACELIGHT_CLI"""
import os
import re
import subprocess
import sys

root, cli = os.path.abspath(sys.argv[1]), sys.argv[2]
failures = []


def fail(message):
    failures.append(message)


def markdown_files():
    yield os.path.join(root, "README.md")
    yield os.path.join(root, "CHANGELOG.md")
    for folder, _, names in os.walk(os.path.join(root, "docs")):
        for name in sorted(names):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def rel(path):
    return os.path.relpath(path, root)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen, result = {}, set()
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
        for name in re.findall(r'<a (?:name|id)="([^"]+)"', line):
            result.add(name)
    return result


link_pattern = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
linked_from = {}  # target file -> files that link to it
pages = list(markdown_files())
for page in pages:
    text = open(page, encoding="utf-8").read()
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if len(line) > 200:
            fail(f"{rel(page)}:{number}: a line of {len(line)} characters (at most 200)")
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in link_pattern.findall(prose):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        destination = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
        if not os.path.exists(destination):
            fail(f"{rel(page)}: link to {target}: no such file")
            continue
        linked_from.setdefault(destination, set()).add(page)
        if anchor and destination.endswith(".md") and anchor not in anchors(destination):
            fail(f"{rel(page)}: link to {target}: no such heading in {rel(destination)}")

readme = os.path.join(root, "README.md")
readme_lines = open(readme, encoding="utf-8").read().count("\n")
if readme_lines > 250:
    fail(f"README.md has {readme_lines} lines (at most 250)")

# Every docs/ page reachable: linked from README.md, or from the README.md of its own folder or its parent's.
for page in pages:
    if not rel(page).startswith("docs" + os.sep):
        continue
    folder = os.path.dirname(page)
    parents = {readme, os.path.join(folder, "README.md"), os.path.join(os.path.dirname(folder), "README.md")} - {page}
    if not linked_from.get(page, set()) & parents:
        fail(f"{rel(page)} is linked neither from README.md nor from its folder's README.md")

# Every image in docs/images is shown somewhere.
images = os.path.join(root, "docs", "images")
for name in sorted(os.listdir(images)) if os.path.isdir(images) else []:
    if name.endswith(".png") and os.path.join(images, name) not in linked_from:
        fail(f"docs/images/{name} is shown on no page")

# User pages speak of behaviour: no test names, no work log, nothing outside the repository.
user_pages = [p for p in pages if rel(p).startswith(("docs/user", "docs/concepts", "docs/reference")) or p == readme]
test_name = re.compile(r"\b[A-Z][A-Za-z]+\.[A-Z][a-z]+(?:[A-Z][a-z]+){2,}\b|\b(?:app|cli|batch|fuzz|samples)\.(?!md\b|png\b|tldb\b)[a-z][a-zA-Z.]+\b")
work_log = re.compile(r"this session|earlier sessions?|re-measured|was \d[\d.,]* ?(?:s|ms|MB|GB|KiB)\b", re.I)
outside = re.compile(r"DESIGN\.md|\.\./shared|shared/(?:papers|realdata)")
for page in user_pages:
    for number, line in enumerate(open(page, encoding="utf-8"), 1):
        for pattern, what in ((test_name, "a test name"), (work_log, "work-log history"), (outside, "a path outside the repository")):
            m = pattern.search(line)
            if m:
                fail(f"{rel(page)}:{number}: {what}: {m.group(0)!r}")

# Sources and --help texts: no pointer outside the repository, and every docs/ page they name exists.
for folder in ("app", "core", "widgets", "samples", "resources"):
    for directory, _, names in os.walk(os.path.join(root, folder)):
        for name in names:
            path = os.path.join(directory, name)
            if not name.endswith((".cpp", ".h", ".html", ".txt", ".qrc")):
                continue
            for number, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = outside.search(line)
                if m:
                    fail(f"{rel(path)}:{number}: points outside the repository: {m.group(0)!r}")
                for doc in re.findall(r"docs/[\w/.-]+\.md", line):
                    if not os.path.exists(os.path.join(root, doc)):
                        fail(f"{rel(path)}:{number}: names {doc}, which does not exist")

# Every command of tracelight-cli in the CLI page (a section each) and in the JSON reference.
top_help = subprocess.run([cli, "--help"], capture_output=True, text=True).stdout
commands = []
in_subcommands = False
for line in top_help.splitlines():
    if line.strip().lower().startswith(("subcommands", "commands")):
        in_subcommands = True
        continue
    if in_subcommands:
        m = re.match(r"\s+([a-z][a-z-]*)\s", line)
        if m:
            commands.append(m.group(1))
if len(commands) < 10:
    fail(f"could not read the commands from '{cli} --help' (found {commands})")
cli_page = open(os.path.join(root, "docs/user/cli.md"), encoding="utf-8").read()
json_page = open(os.path.join(root, "docs/reference/json.md"), encoding="utf-8").read()
for command in commands:
    if not re.search(rf"^#+ .*`?{re.escape(command)}`?", cli_page, re.M):
        fail(f"docs/user/cli.md has no section for the command {command}")
    if f"`{command}`" not in json_page and not re.search(rf"^#+ .*\b{re.escape(command)}\b", json_page, re.M):
        fail(f"docs/reference/json.md does not mention the command {command}")
    help_text = subprocess.run([cli, command, "--help"], capture_output=True, text=True).stdout
    m = outside.search(help_text)
    if m:
        fail(f"tracelight-cli {command} --help points outside the repository: {m.group(0)!r}")

for message in failures:
    print(message)
print(f"{len(pages)} pages, {len(commands)} commands checked: {len(failures)} problems")
sys.exit(1 if failures else 0)
