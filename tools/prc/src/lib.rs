//! Palm resource (.prc) and record (.pdb) database files: reader and writer.
