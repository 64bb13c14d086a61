#!/usr/bin/python3
"""gen-inputs.py OUTDIR — write the inputs of tests/suites/40-programs.sh.

Deterministic: every byte comes from random.Random with a fixed seed, so two
runs (and two machines) produce identical files.  Run it with the system
python3 and without LD_PRELOAD: generating is not the thing under test.

OUTDIR receives:
  sort.txt        ~20 MB of "word<TAB>number<TAB>word" lines, unsorted
  inserts.sql     a transaction of 100,000 INSERTs, then indexes
  cprog/          a C program in several files (main.c, mod*.c, mod.h)
  tree/           a source tree for git and tar: nested dirs of text files
Exit status: 0, or 2 on a usage error.
"""
import os
import random
import sys

SEED = 20240601
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu "
         "nu xi omicron pi rho sigma tau upsilon phi chi psi omega").split()


def word(rng):
    """A pseudo-word of 3-12 letters."""
    return "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 12)))


def gen_sort(path, rng, target_bytes=20 * 1024 * 1024):
    """Lines with repeated keys (so sort -k/-s order matters) up to ~20 MB."""
    total = 0
    with open(path, "w") as f:
        while total < target_bytes:
            line = "%s\t%d\t%s\n" % (word(rng), rng.randint(-10**9, 10**9),
                                     rng.choice(WORDS))
            f.write(line)
            total += len(line)


def gen_sql(path, rng, rows=100_000):
    """One transaction of single-row INSERTs into two related tables."""
    with open(path, "w") as f:
        f.write("PRAGMA journal_mode=WAL;\nBEGIN;\n")
        f.write("CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n")
        f.write("CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, age INT,"
                " city INT REFERENCES city(id), note TEXT);\n")
        for i in range(200):
            f.write("INSERT INTO city VALUES(%d,'%s');\n" % (i, word(rng)))
        for i in range(rows):
            f.write("INSERT INTO person VALUES(%d,'%s',%d,%d,'%s');\n" % (
                i, word(rng), rng.randint(0, 99), rng.randint(0, 199),
                " ".join(word(rng) for _ in range(rng.randint(0, 8)))))
        f.write("COMMIT;\n")


def gen_cprog(root, rng, nmods=12):
    """main.c calls every module; each module builds and frees a list."""
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "mod.h"), "w") as h:
        h.write("#ifndef MOD_H\n#define MOD_H\n")
        for m in range(nmods):
            h.write("unsigned long mod%d_run(unsigned n);\n" % m)
        h.write("#endif\n")
    for m in range(nmods):
        k = rng.randint(3, 97)
        with open(os.path.join(root, "mod%d.c" % m), "w") as f:
            f.write('#include <stdlib.h>\n#include <string.h>\n#include "mod.h"\n'
                    "struct node%d { struct node%d *next; char text[%d]; };\n"
                    "unsigned long mod%d_run(unsigned n)\n{\n"
                    "    struct node%d *head = NULL;\n"
                    "    unsigned long sum = 0;\n"
                    "    for (unsigned i = 0; i < n; i++) {\n"
                    "        struct node%d *x = malloc(sizeof *x);\n"
                    "        memset(x->text, 'a' + i %% 26, sizeof x->text);\n"
                    "        x->next = head; head = x;\n"
                    "        sum = sum * %d + (unsigned char)x->text[i %% sizeof x->text];\n"
                    "    }\n"
                    "    while (head) { struct node%d *n2 = head->next; free(head); head = n2; }\n"
                    "    return sum;\n}\n" % (m, m, k, m, m, m, k, m))
    with open(os.path.join(root, "main.c"), "w") as f:
        f.write('#include <stdio.h>\n#include "mod.h"\nint main(void)\n{\n')
        for m in range(nmods):
            f.write('    printf("mod%d %%lu\\n", mod%d_run(%d));\n'
                    % (m, m, rng.randint(1000, 50000)))
        f.write("    return 0;\n}\n")


def gen_tree(root, rng, ndirs=20, nfiles=15):
    """ndirs directories of nfiles text files of varied length."""
    for d in range(ndirs):
        sub = os.path.join(root, "dir%02d" % d, "sub%d" % (d % 3))
        os.makedirs(sub, exist_ok=True)
        for i in range(nfiles):
            lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
                     for _ in range(rng.randint(1, 200))]
            with open(os.path.join(sub, "file%03d.txt" % i), "w") as f:
                f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    gen_sort(os.path.join(out, "sort.txt"), random.Random(SEED))
    gen_sql(os.path.join(out, "inserts.sql"), random.Random(SEED + 1))
    gen_cprog(os.path.join(out, "cprog"), random.Random(SEED + 2))
    gen_tree(os.path.join(out, "tree"), random.Random(SEED + 3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
