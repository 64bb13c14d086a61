#!/usr/bin/perl
# perl_workload.pl — a perl workload for tests/suites/40-programs.sh.
#
# Hashes (insert, update, delete), regular expressions with captures and
# substitution, and sorts (string, numeric, multi-key) over text made by a
# fixed linear congruential generator, so the input and the printed
# results are the same on every run.  Hash order is never printed (perl
# randomises it per process); every listing is sorted first.
# No arguments; exit status 0.
use strict;
use warnings;

my $state = 12345;
# lcg: the next pseudo-random integer in [0, $n).  Our own generator, so the
# sequence does not depend on perl's rand().
sub lcg {
    my ($n) = @_;
    $state = ($state * 1103515245 + 12345) % 2147483648;
    return int($state / 65536) % $n;
}

my @letters = ('a' .. 'z');
my @words;
for (1 .. 150_000) {
    my $len = 2 + lcg(9);
    push @words, join('', map { $letters[lcg(26)] } 1 .. $len);
}

# Hash workload.
my %count;
$count{$_}++ for @words;
delete $count{$_} for grep { length($_) == 3 } keys %count;
my %byfirst;
push @{ $byfirst{ substr($_, 0, 1) } }, $_ for keys %count;
my $total = 0;
$total += $count{$_} for keys %count;
printf "hash keys=%d total=%d groups=%d\n", scalar(keys %count), $total,
    scalar(keys %byfirst);

# Regex workload: captures, alternation, global substitution.
my $text = join(' ', @words);
my $vowel_runs = () = $text =~ /[aeiou]{3,}/g;
my %pairs;
while ($text =~ /\b([a-m])(\w*?)([n-z])\b/g) {
    $pairs{"$1$3"}++;
}
(my $swapped = $text) =~ s/(\w)(\w)/$2$1/g;
printf "regex vowel_runs=%d pairs=%d swapped_len=%d head=%s\n", $vowel_runs,
    scalar(keys %pairs), length($swapped), substr($swapped, 0, 40);

# Sort workload: string, numeric, and by count then name.
my @s = sort @words;
my @n = sort { $a <=> $b } map { lcg(32768) * 32768 + lcg(32768) } 1 .. 200_000;
my @top = (sort { $count{$b} <=> $count{$a} or $a cmp $b } keys %count)[0 .. 4];
printf "sort first=%s last=%s nmin=%d nmax=%d top=%s\n", $s[0], $s[-1], $n[0],
    $n[-1], join(',', map { "$_:$count{$_}" } @top);
