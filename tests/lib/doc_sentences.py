"""doc_sentences.py - counts the words of a Markdown file's prose sentences and checks their median and longest.

Prose is every line outside fenced code blocks, tables, HTML comments, headings and lines that hold only an image.
A paragraph or a list item is split into sentences after '.', '!' or '?' followed by a space.
A word is a run of characters between spaces that holds a letter or a digit; a link counts by its text.

usage: python3 doc_sentences.py FILE.md [--median N] [--max N] [--list]
Exit status 0 when the median is at most --median and no sentence is over --max, else 1.
"""
import argparse
import re
import statistics
import sys

from doc_links import prose_lines

LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
SPLIT = re.compile(r"(?<=[.!?])[)\"'*_]*\s+(?=\S)")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
IMAGE_ONLY = re.compile(r"^\s*!\[[^\]]*\]\([^)]*\)\s*$")


def blocks(text):
    """The prose of the file as a list of text blocks (paragraphs and list items)."""
    out, cur = [], []
    comment = False

    def flush():
        if cur:
            out.append(" ".join(cur))
            cur.clear()

    for _, line in prose_lines(text, keep_code=True, breaks=True):
        if line is None:  # a fenced block ends the paragraph
            flush()
            continue
        if comment:
            if "-->" in line:
                comment = False
                line = line.split("-->", 1)[1]
                s = line.strip()
            else:
                continue
        line = re.sub(r"<!--.*?-->", "", line)
        if "<!--" in line:
            line = line.split("<!--", 1)[0]
            comment = True
        s = line.strip()
        if not s or s.startswith("|") or s.startswith("#") or IMAGE_ONLY.match(s):
            flush()
            continue
        if ITEM.match(line):
            flush()
            s = ITEM.sub("", line).strip()
        cur.append(s)
    flush()
    return out


def sentences(text):
    text = LINK.sub(r"\1", text)
    return [s.strip() for s in SPLIT.split(text) if s.strip()]


def words(sentence):
    return [w for w in sentence.split() if re.search(r"[A-Za-z0-9]", w)]


def main():
    ap = argparse.ArgumentParser(description="checks the sentence lengths of a Markdown file's prose")
    ap.add_argument("file")
    ap.add_argument("--median", type=float, default=22)
    ap.add_argument("--max", type=int, default=50)
    ap.add_argument("--list", action="store_true", help="print every sentence with its word count")
    a = ap.parse_args()
    with open(a.file, encoding="utf-8") as f:
        sents = [s for b in blocks(f.read()) for s in sentences(b)]
    counts = [len(words(s)) for s in sents]
    if a.list:
        for n, s in zip(counts, sents):
            print("%3d  %s" % (n, s))
    if not sents:
        print("%s: no prose sentences found" % a.file)
        return 1
    med = statistics.median(counts)
    longest = max(range(len(sents)), key=lambda i: counts[i])
    print("%s: %d sentences, median %g words, longest %d" % (a.file, len(sents), med, counts[longest]))
    bad = 0
    if med > a.median:
        print("FAIL: the median sentence has %g words (at most %g)" % (med, a.median))
        bad = 1
    over = [i for i in range(len(sents)) if counts[i] > a.max]
    if over:
        print("FAIL: %d sentences over %d words; the longest (%d words): %s"
              % (len(over), a.max, counts[longest], sents[longest]))
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
