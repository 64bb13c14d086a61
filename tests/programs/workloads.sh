#!/usr/bin/env bash
# workloads.sh NAME INPUTS SCRATCH — run one real-program workload of
# tests/suites/40-programs.sh and print its results on stdout.
#
#   NAME     python | gcc | git | perl | sqlite | sort | tarxz
#   INPUTS   directory made by gen-inputs.py (read only)
#   SCRATCH  an empty directory this run may write to
# The output is deterministic: no paths, times, pids or hash orders, so a
# run under LD_PRELOAD=libchunkguard.so must print exactly what a plain run
# prints.  The script's own pid goes to SCRATCH/main.pid (the suite checks
# that this process, too, was served by chunkguard).
# Exit status: that of the failing step, 2 on a usage error.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 NAME INPUTS SCRATCH" >&2; exit 2; }
name=$1 in=$2 scratch=$3
here=$(cd "$(dirname "$0")" && pwd)
echo $$ > "$scratch/main.pid"
cd "$scratch"
export LC_ALL=C TZ=UTC

case "$name" in
python)
  /usr/bin/python3 "$here/py_workload.py" ;;
gcc)
  # Compile each file separately (cc1 and as per file), link (collect2,
  # ld), then run the result: all of them are real programs under test.
  cp -r "$in/cprog" .
  for f in cprog/*.c; do
    gcc -O1 -g -Wall -c "$f" -o "${f%.c}.o"
  done
  gcc -o cgprog cprog/*.o
  ./cgprog ;;
git)
  # Fixed identity and dates make commit ids reproducible; no user or
  # system config, no pager, no background gc.
  export HOME=$scratch GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
  export GIT_AUTHOR_NAME=cg GIT_AUTHOR_EMAIL=cg@example.invalid
  export GIT_COMMITTER_NAME=cg GIT_COMMITTER_EMAIL=cg@example.invalid
  g() { git -c init.defaultBranch=main -c gc.auto=0 -c core.pager=cat "$@"; }
  cp -r "$in/tree" repo
  cd repo
  g init -q .
  for i in 1 2 3; do
    export GIT_AUTHOR_DATE="2024-01-0${i}T12:00:00Z" GIT_COMMITTER_DATE="2024-01-0${i}T12:00:00Z"
    if [ "$i" -gt 1 ]; then
      # Each commit edits, deletes and adds some files.
      for f in dir0$i/sub*/file00[0-4].txt; do echo "edit $i" >> "$f"; done
      rm -f dir1$i/sub*/file01*.txt
      mkdir -p "new$i" && seq 1 500 | sed "s/^/line $i /" > "new$i/added.txt"
    fi
    g add -A
    g commit -q -m "commit $i"
  done
  g log --stat --format='%H %an %ad %s' --date=iso
  g log --oneline --name-status HEAD~2..HEAD | sort | sha256sum
  g repack -adq
  g count-objects -v | grep -E '^(count|in-pack|packs):'
  g fsck --no-progress 2>&1 | sort ;;
perl)
  perl "$here/perl_workload.pl" ;;
sqlite)
  sqlite3 db.sqlite < "$in/inserts.sql" >/dev/null
  sqlite3 db.sqlite <<'SQL'
CREATE INDEX person_city ON person(city);
CREATE INDEX person_age ON person(age);
SELECT count(*), sum(age), min(name), max(name) FROM person;
SELECT c.name, count(*) AS n, avg(p.age) FROM person p JOIN city c ON c.id = p.city
  GROUP BY c.id ORDER BY n DESC, c.name LIMIT 5;
SELECT age, count(*) FROM person WHERE note LIKE '%ab%' GROUP BY age ORDER BY age LIMIT 10;
SELECT name FROM person ORDER BY length(note) DESC, id LIMIT 5;
UPDATE person SET age = age + 1 WHERE age < 50;
DELETE FROM person WHERE id % 7 = 0;
SELECT count(*), sum(age) FROM person;
PRAGMA integrity_check;
SQL
  ;;
sort)
  # A small buffer makes sort write and merge temporary files; --parallel
  # makes it use threads.
  sort -S 4M --parallel=2 -T . "$in/sort.txt" > s1
  sort -S 4M --parallel=2 -T . -t "$(printf '\t')" -k3,3 -k2,2n "$in/sort.txt" > s2
  sort -u -k1,1 "$in/sort.txt" | wc -l
  sha256sum s1 s2 | sed 's/ .*//'
  wc -l < s1 ;;
tarxz)
  # Fixed order, times and owners make the archive reproducible; xz -T2
  # with 1 MiB blocks compresses in two threads.  4 MB of the sort input
  # (random text compresses slowly) gives enough blocks for both threads.
  mkdir src out
  cp -r "$in/tree" src/tree && head -c 4000000 "$in/sort.txt" > src/part.txt
  tar -C src --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . |
    xz -T2 --block-size=1MiB -1 > a.tar.xz
  xz -T2 -t a.tar.xz
  xz -dc -T2 a.tar.xz | tar -C out -xf -
  sha256sum a.tar.xz | sed 's/ .*//'
  (cd src && find . -type f | sort | xargs sha256sum) > src.sums
  (cd out && sha256sum -c --quiet ../src.sums) && echo "round trip ok"
  sha256sum < src.sums ;;
*)
  echo "unknown workload $name" >&2; exit 2 ;;
esac
