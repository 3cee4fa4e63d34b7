//! The viewer's resource IDs: the `#define`s of `rsrc/MemDbgViewer.rcp`, as
//! constants palm-build generates from the `.rcp` when it builds the app
//! (`PALM_RESOURCE_IDS`, `palm_build::ids`). Names are the `.rcp`'s.
#![allow(non_upper_case_globals)]

include!(env!(
    "PALM_RESOURCE_IDS",
    "build with `palm-build app`: it generates the resource IDs from the .rcp"
));
