//! The app's resource IDs: forms, their objects, menu commands and alerts, the
//! `#define`s of `rsrc/StarterAppRsc.h` (which `rsrc/StarterApp.rcp`
//! includes) and of the `.rcp` itself, as constants that palm-build
//! generates from the `.rcp` when it builds the app (`PALM_RESOURCE_IDS`,
//! `palm_build::ids`), so the PRC's resources and this code cannot disagree.
//! Names are the header's.
#![allow(non_upper_case_globals)]

include!(env!(
    "PALM_RESOURCE_IDS",
    "build with `palm-build app`: it generates the resource IDs from the .rcp"
));
