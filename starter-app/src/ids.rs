//! The app's resource IDs: forms, their objects, menu commands and alerts,
//! read from `rsrc/StarterAppRsc.h` by the build script (`build/main.rs`) —
//! the header that `rsrc/StarterApp.rcp` includes too, so the PRC's
//! resources and this code cannot disagree. Names are the header's.
#![allow(non_upper_case_globals)]

include!(concat!(env!("OUT_DIR"), "/ids.rs"));
