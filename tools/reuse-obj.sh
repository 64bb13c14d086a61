#!/bin/sh
# reuse-obj.sh BASE OUT DEFS PREREQ... -- CC ARG... — compile as
# "CC ARG... DEFS -c SRC -o OUT" (the last prerequisite-free ARGs end with
# "-c SRC"), or copy BASE instead when that gives the same object: BASE is
# the file built by "CC ARG... -c SRC" without DEFS (the default build of
# the same tree), newer than every PREREQ (so up to date, by make's own
# rule), and SRC preprocesses to the same text with DEFS and without: DEFS
# reach nothing in it.  The Makefile's CG_REUSE: a variant build that turns
# one check off recompiles only the files that check is in.
# A copy, not a hard link: the compiler rewrites BASE in place when the
# default build is redone, which would change the variant's object too.
set -u
base=$1 out=$2 defs=$3; shift 3
fresh=1
while [ "$1" != -- ]; do
    [ -f "$base" ] && [ "$base" -nt "$1" ] || fresh=0
    shift
done
shift
if [ "$fresh" = 1 ]; then
    a=$(mktemp) b=$(mktemp)
    # $defs unquoted: one or more -D words
    if "$@" -E -o "$a" && "$@" $defs -E -o "$b" && cmp -s "$a" "$b"; then
        rm -f "$a" "$b"
        cp "$base" "$out.tmp" && mv "$out.tmp" "$out" && exit 0
    fi
    rm -f "$a" "$b"
fi
exec "$@" $defs -o "$out"
