//! The memdbg starter application: a real Palm app exercising every memdbg feature.
