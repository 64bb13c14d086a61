#!/usr/bin/python3
"""check.py — the checkers of tests/suites/70-command.sh, each able to fail.

  check.py sarif FILE SCHEMA     validate FILE against the SARIF 2.1.0 JSON
                                 schema (Debian's python3-jsonschema)
  check.py junit FILE            parse FILE as JUnit XML and check the
                                 structure JUnit's schema requires
  check.py dom FILE              read a DOM dump of the HTML report (from
                                 chromium --dump-dom): print one line per
                                 report group, "<kind> wrong=<hex bytes>",
                                 then "leaks <bytes>..." in table order
Exit status 0 when valid, 1 with the reasons on stderr when not.
"""
import json
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser


def check_sarif(path, schema_path):
    import jsonschema
    with open(schema_path) as f:
        schema = json.load(f)
    with open(path) as f:
        doc = json.load(f)
    v = jsonschema.Draft202012Validator(schema)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"sarif: {'/'.join(map(str, e.path))}: {e.message[:200]}", file=sys.stderr)
    return not errors


def check_junit(path):
    """testsuites > testsuite(name, tests, failures) > testcase(name,
    classname) > failure(type/message); the counts must add up."""
    ok = True

    def bad(msg):
        nonlocal ok
        ok = False
        print(f"junit: {msg}", file=sys.stderr)

    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        bad(f"not XML: {e}")
        return False
    suites = [root] if root.tag == "testsuite" else list(root)
    if root.tag not in ("testsuites", "testsuite"):
        bad(f"root element is {root.tag}")
    for s in suites:
        if s.tag != "testsuite":
            bad(f"unexpected element {s.tag}")
            continue
        for attr in ("name", "tests", "failures"):
            if attr not in s.attrib:
                bad(f"testsuite without {attr}")
        cases = s.findall("testcase")
        fails = s.findall("testcase/failure")
        if s.get("tests") != str(len(cases)):
            bad(f"tests={s.get('tests')} but {len(cases)} testcase elements")
        if s.get("failures") != str(len(fails)):
            bad(f"failures={s.get('failures')} but {len(fails)} failure elements")
        for c in cases:
            if not c.get("name") or not c.get("classname"):
                bad("testcase without name or classname")
            for child in c:
                if child.tag not in ("failure", "error", "skipped", "system-out", "system-err"):
                    bad(f"testcase child {child.tag}")
    return ok


class Dom(HTMLParser):
    """Collects, per div.group, its kind and its td.b-wrong bytes; and the
    leak table's first column."""

    def __init__(self):
        super().__init__()
        self.groups, self.leaks = [], []
        self.stack = []          # open tags with their classes
        self.text_to = None
        self.external = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        for k in ("src", "href"):
            if k in a and a[k] and a[k].split(":")[0] in ("http", "https", "//"):
                self.external.append(a[k])
        if tag == "link" or tag == "script" and a.get("src"):
            self.external.append(a.get("href") or a.get("src"))
        if tag == "div" and "group" in cls:
            self.groups.append({"kind": "", "wrong": []})
        if tag == "span" and "kind" in cls and self.groups:
            self.text_to = ("kind", self.groups[-1])
        if tag == "td" and "b-wrong" in cls and self.groups:
            self.text_to = ("wrong", self.groups[-1])
        if tag == "table" and "leaks" in cls:
            self.in_leaks, self.col = True, 0
        if tag == "tr" and getattr(self, "in_leaks", False):
            self.col = 0
        if tag == "td" and getattr(self, "in_leaks", False):
            self.col += 1
            if self.col == 1:
                self.text_to = ("leak", None)

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_leaks = False

    def handle_data(self, data):
        if not self.text_to:
            return
        what, g = self.text_to
        self.text_to = None
        if what == "kind":
            g["kind"] = data.strip()
        elif what == "wrong":
            g["wrong"].append(data.strip())
        else:
            self.leaks.append(data.strip())


def check_dom(path):
    d = Dom()
    with open(path, encoding="utf-8", errors="replace") as f:
        d.feed(f.read())
    for g in d.groups:
        print(f"{g['kind']} wrong={''.join(g['wrong'])}")
    print("leaks " + " ".join(d.leaks))
    if d.external:
        print(f"dom: external resources: {d.external[:3]}", file=sys.stderr)
        return False
    return True


def main(argv):
    if len(argv) >= 3 and argv[1] == "sarif":
        ok = check_sarif(argv[2], argv[3])
    elif len(argv) >= 2 and argv[1] == "junit":
        ok = check_junit(argv[2])
    elif len(argv) >= 2 and argv[1] == "dom":
        ok = check_dom(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
