"""doc_links.py - checks the relative links of Markdown files and which pages README.md reaches.

A relative link must name a file that exists, and its #anchor a heading (or an <a id/name>) of that file.
Anchors follow GitHub's rule: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeated headings.
A page is reachable when a chain of Markdown links leads to it from the first file given.

usage: python3 doc_links.py ROOT --check FILE.md... [--reach PAGE...]
ROOT is the repository; FILE and PAGE are paths inside it.
--check: the files whose links are checked; the first is where reachability starts.
--reach: the pages (Markdown or not) that must be reachable; a page that does not exist is named as missing.
Exit status 0 when every link resolves and every --reach page is reachable, else 1.
"""
import argparse
import os
import re
import sys
import urllib.parse

INLINE = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HTMLREF = re.compile(r"<(?:a|img)\s[^>]*(?:href|src)=\"([^\"]+)\"", re.I)
HTMLID = re.compile(r"<a\s[^>]*(?:id|name)=\"([^\"]+)\"", re.I)


def prose_lines(text, keep_code=False, breaks=False):
    """The file's numbered lines outside fenced code blocks, inline code removed unless keep_code;
    with breaks, (n, None) where a fenced block opens."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if fence:
            if s.startswith(fence):
                fence = None
            continue
        m = re.match(r"^(`{3,}|~{3,})", s)
        if m:
            fence = m.group(1)
            if breaks:
                yield n, None
            continue
        yield n, line if keep_code else re.sub(r"`[^`]*`", "", line)


def slug(heading):
    h = re.sub(r"<[^>]+>", "", heading)
    h = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = h.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(text):
    seen, out = {}, set()
    for _, line in prose_lines(text, keep_code=True):  # headings keep their code text
        m = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            k = seen.get(base, 0)
            out.add(base if k == 0 else "%s-%d" % (base, k))
            seen[base] = k + 1
        for a in HTMLID.findall(line):
            out.add(a)
    return out


def links(text):
    for n, line in prose_lines(text):
        for t in INLINE.findall(line) + HTMLREF.findall(line):
            yield n, t
        m = REFDEF.match(line)
        if m:
            yield n, m.group(1)


def is_external(target):
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)) or target.startswith("//")


def main():
    ap = argparse.ArgumentParser(description="checks Markdown links and reachability from README.md")
    ap.add_argument("root")
    ap.add_argument("--check", nargs="+", required=True)
    ap.add_argument("--reach", nargs="*", default=[])
    a = ap.parse_args()
    root = os.path.realpath(a.root)

    texts, anchor_cache = {}, {}

    def text_of(rel):
        if rel not in texts:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                texts[rel] = f.read()
        return texts[rel]

    def resolve(src, target):
        """(path relative to root, anchor) of a link in src."""
        path, _, frag = target.partition("#")
        path = urllib.parse.unquote(path)
        if not path:
            return src, frag
        full = os.path.normpath(os.path.join(root, os.path.dirname(src), path))
        return os.path.relpath(full, root), frag

    bad = []
    missing = {}
    edges = {}
    for src in a.check:
        edges[src] = set()
        for n, target in links(text_of(src)):
            if is_external(target):
                continue
            dst, frag = resolve(src, target)
            where = "%s:%d" % (src, n)
            if dst.startswith(".."):
                bad.append("%s: %s leaves the repository" % (where, target))
                continue
            full = os.path.join(root, dst)
            if not os.path.exists(full):
                missing.setdefault(dst, []).append(where)
                continue
            edges[src].add(dst)
            if frag:
                if not dst.endswith(".md") or os.path.isdir(full):
                    bad.append("%s: %s: an anchor on a file that is not Markdown" % (where, target))
                    continue
                if dst not in anchor_cache:
                    anchor_cache[dst] = anchors(text_of(dst))
                if frag not in anchor_cache[dst]:
                    bad.append("%s: %s: no heading of %s gives the anchor #%s" % (where, target, dst, frag))

    # reachability: follow Markdown links from the first file, also through pages not in --check
    start = a.check[0]
    seen, todo = {start}, [start]
    while todo:
        page = todo.pop()
        out = edges.get(page)
        if out is None:
            out = set()
            for _, target in links(text_of(page)):
                if is_external(target):
                    continue
                dst, _ = resolve(page, target)
                if os.path.exists(os.path.join(root, dst)):
                    out.add(dst)
        for dst in out:
            if dst not in seen:
                seen.add(dst)
                if dst.endswith(".md") and os.path.isfile(os.path.join(root, dst)):
                    todo.append(dst)
    unreached = [p for p in a.reach if os.path.exists(os.path.join(root, p)) and p not in seen]
    absent = [p for p in a.reach if not os.path.exists(os.path.join(root, p))]

    for dst in sorted(set(absent) | set(missing)):
        froms = missing.get(dst, [])
        print("FAIL: missing page %s%s" % (dst, (" (linked from %s)" % ", ".join(froms)) if froms else ""))
    for b in bad:
        print("FAIL: " + b)
    for p in unreached:
        print("FAIL: %s is not reachable from %s by following links" % (p, start))
    nlinks = sum(len(v) for v in edges.values())
    print("%d files checked, %d links to existing files, %d pages reachable from %s"
          % (len(a.check), nlinks, len(seen), start))
    return 1 if (bad or missing or absent or unreached) else 0


if __name__ == "__main__":
    sys.exit(main())
