#!/usr/bin/perl
# dump.pl FILE: print a .prc/.pdb as Palm::PDB (Debian's libpalm-perl) reads it,
# in the format that tests/interop.rs renders from palm-prc's reader.
#
# Palm::PDB keeps attributes as named flags, so the numbers are rebuilt here:
# - header attributes from the flag names it knows (0x0001-0x0800, 0x8000);
# - a record's attribute byte from Delete/Dirty/Busy/Secret plus either its
#   category (low nibble) or, for records with Delete or Busy set, its
#   "archive" flag (0x08); Palm::PDB drops bits 0x07 of such records.
use strict;
use warnings;
use Palm::PDB;
use Palm::Raw;

# Palm::Raw registers itself for record databases only; use it for resources too.
Palm::PDB::RegisterPRCHandlers('Palm::Raw', '');

my %header_bits = (
    ResDB => 0x0001, ReadOnly => 0x0002, AppInfoDirty => 0x0004, Backup => 0x0008,
    OKToInstallNewer => 0x0010, ResetAfterInstall => 0x0020, CopyPrevention => 0x0040,
    Stream => 0x0080, Hidden => 0x0100, LaunchableData => 0x0200, Recyclable => 0x0400,
    Bundle => 0x0800, Open => 0x8000,
);
my %record_bits = (Delete => 0x80, Dirty => 0x40, Busy => 0x20, Secret => 0x10);

sub block {
    my ($data) = @_;
    return 'none' unless defined $data;
    return sprintf('%d bytes %s', length($data), unpack('H*', $data));
}

my $file = shift @ARGV or die "usage: dump.pl FILE\n";
my $pdb = Palm::PDB->new;
$pdb->Load($file) or die "Palm::PDB could not load $file\n";

my $attributes = 0;
for my $name (keys %header_bits) {
    $attributes |= $header_bits{$name} if $pdb->{attributes}{$name};
}
print "name: $pdb->{name}\n";
printf "type: %s\n", unpack('H8', $pdb->{type});
printf "creator: %s\n", unpack('H8', $pdb->{creator});
printf "attributes: 0x%04x\n", $attributes;
print "version: $pdb->{version}\n";
print "ctime: $pdb->{ctime}\n";
print "mtime: $pdb->{mtime}\n";
print "baktime: $pdb->{baktime}\n";
print "modnum: $pdb->{modnum}\n";
printf "uniqueIDseed: 0x%08x\n", $pdb->{uniqueIDseed};
print 'appinfo: ', block($pdb->{appinfo}), "\n";
print 'sortinfo: ', block($pdb->{sort}), "\n";
for my $r (@{ $pdb->{resources} || [] }) {
    printf "resource %s %d %s\n", unpack('H8', $r->{type}), $r->{id}, block($r->{data});
}
for my $r (@{ $pdb->{records} || [] }) {
    my $byte = 0;
    for my $name (keys %record_bits) {
        $byte |= $record_bits{$name} if $r->{attributes}{$name};
    }
    if (defined $r->{category}) {
        $byte |= $r->{category};
    } elsif ($r->{attributes}{archive}) {
        $byte |= 0x08;
    }
    printf "record 0x%02x 0x%06x %s\n", $byte, $r->{id}, block($r->{data});
}
