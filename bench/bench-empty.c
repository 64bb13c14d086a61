/*
 * bench-empty.c — the shared object that the glibc baseline preloads.
 *
 * It defines nothing the programs use.  Preloading it makes the dynamic
 * loader do for the glibc runs what it does for every preloaded allocator
 * (open, map and relocate one more object, search it first for every
 * symbol), so the baseline's peak RSS and start-up include that cost too and
 * the ratios compare allocators, not "preloaded or not".  run.py's
 * glibc-bare column shows the difference.
 */
int bench_empty_preload_marker;
