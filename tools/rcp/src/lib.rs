//! PilRC-syntax resource compiler (.rcp to binary Palm resources) and resource parsers.
