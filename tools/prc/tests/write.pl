#!/usr/bin/perl
# write.pl OUT.prc OUT.pdb: write a resource and a record database with
# Palm::PDB (Debian's libpalm-perl), for tests/interop.rs to read with
# palm-prc. The expected values are spelled out again in interop.rs.
use strict;
use warnings;
use Palm::PDB;
use Palm::Raw;

my ($prc_file, $pdb_file) = @ARGV;
die "usage: write.pl OUT.prc OUT.pdb\n" unless defined $pdb_file;

my $prc = Palm::Raw->new({
    name => 'Perl PRC',
    attributes => { ResDB => 1, Backup => 1 },
    version => 2,
    ctime => 1_000_000_000,
    mtime => 1_000_000_060,
    baktime => 1_000_000_120,
    modnum => 5,
    type => 'appl',
    creator => 'PlWr',
    uniqueIDseed => 0x00ABC000,
});
$prc->{appinfo} = "\x01\x02\x03";
$prc->{resources} = [
    { type => 'code', id => 0, data => "\x00\x00\x00\x28" },
    { type => 'tSTR', id => 1000, data => '' },
    { type => 'tver', id => 1, data => "9.9\x00" },
];
$prc->Write($prc_file) or die "cannot write $prc_file\n";

my $pdb = Palm::Raw->new({
    name => 'Perl PDB',
    attributes => { Backup => 1, OKToInstallNewer => 1 },
    version => 1,
    ctime => 1_100_000_000,
    mtime => 1_100_000_001,
    baktime => 1_100_000_002,
    modnum => 9,
    type => 'DATA',
    creator => 'PlWr',
    uniqueIDseed => 0x00ABD000,
});
$pdb->{appinfo} = 'app info';
$pdb->{sort} = 'sort';
$pdb->{records} = [
    # Palm::PDB writes records with Delete set after all the others.
    { attributes => { Delete => 1 }, category => 8, id => 0x000003, data => 'gone' },
    { attributes => { Dirty => 1 }, category => 3, id => 0x000001, data => "\x00\xff" },
    { attributes => { Secret => 1 }, category => 15, id => 0xfedcba, data => 'secret' },
];
$pdb->Write($pdb_file) or die "cannot write $pdb_file\n";
